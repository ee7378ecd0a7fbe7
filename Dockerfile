# deckcheck: the JSON API and web page under gunicorn, with the card database baked in.
#   docker build -t deckcheck .
#   docker run --rm -p 8000:8000 deckcheck
# The service keeps no state between requests: scale out by running more replicas
# of this image behind any load balancer (each probe: GET /healthz, GET /readyz).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DECKCHECK_DATA_DIR=/app/data \
    DECKCHECK_BIND=0.0.0.0:8000

WORKDIR /app

# a fixed numeric id, so orchestrators can check runAsNonRoot without a passwd file
RUN groupadd --system --gid 10001 deckcheck \
    && useradd --system --uid 10001 --gid deckcheck --home-dir /app --shell /usr/sbin/nologin deckcheck

# the package (with its gunicorn settings, deckcheck/service/gunicorn_conf.py), its data (formats, alias
# tables, cards.json.gz) and the licences; installed with the server extra at the versions the
# tests ran with (requirements.lock)
COPY pyproject.toml README.md LICENSE NOTICE requirements.lock ./
COPY deckcheck ./deckcheck
COPY data ./data
RUN pip install --no-cache-dir -c requirements.lock ".[server]" \
    && python -c "import deckcheck.cards as c; print('card database', c.load().info()['version'])"

USER 10001:10001
EXPOSE 8000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]

# exec form: gunicorn's master is PID 1 and gets SIGTERM directly (graceful stop)
CMD ["deckcheck", "serve"]
