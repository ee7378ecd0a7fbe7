"""The service's settings: every Flask config key the service reads, with its default, in one table.

:func:`deckcheck.service.app.create_app` starts from :data:`DEFAULTS`, then reads ``DECKCHECK_<KEY>`` from the
environment (``DECKCHECK_RATELIMIT_DEFAULT``...), then the ``config`` it is given. The README lists them.

The card database has one knob, ``DECKCHECK_DB`` (:func:`deckcheck.cards.default_path`, shared with the command
line). ``CARD_DB_PATH`` is its spelling for programs that build the app themselves (``create_app({"CARD_DB_PATH":
...})``): left ``None`` it is that same default, and the environment cannot set it a second way
(``DECKCHECK_CARD_DB_PATH`` is refused: :data:`ENV_REFUSED`).
"""

from __future__ import annotations

from typing import Any

from ..decklist import parse

DEFAULTS: dict[str, Any] = {
    "CARD_DB_PATH": None,  # None: deckcheck.cards.default_path() (DECKCHECK_DB, else data/cards.json.gz)
    "DEFAULT_FORMAT": "standard",
    "MAX_DECKLIST_BYTES": parse.MAX_DECKLIST_BYTES,
    "MAX_DECKLIST_LINES": parse.MAX_DECKLIST_LINES,
    "MAX_DB_AGE": None,  # days; a check warns (stale-database) when the newest set is older than this
    # shared use (deckcheck/service/ratelimit.py, deckcheck/service/discord.py)
    "RATELIMIT_ENABLED": True,
    "RATELIMIT_DEFAULT": "60 per minute",  # per client address, over all of /api/v1
    "RATELIMIT_KEYED": "600 per minute",  # per API key
    "RATELIMIT_STORAGE_URI": "memory://",  # redis://host:port when several instances run
    "RATELIMIT_KEY_PREFIX": "deckcheck",  # Flask-Limiter's: the prefix of the counters in shared storage
    "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,  # Flask-Limiter's: count in memory while Redis is away
    "API_KEYS": "",  # comma-separated
    "CORS_ORIGINS": "*",  # comma-separated origins allowed to call /api from a browser
    "TRUSTED_PROXIES": 0,  # reverse proxies in front whose X-Forwarded-* headers are trusted
    # the service's public address (https://decks.example.org): the base of every absolute link it writes
    # (share links, chat replies, redirects; deckcheck/service/links.py). None: links are root-relative, and chat
    # replies carry none. Never the request's Host header, which any client sets.
    "PUBLIC_URL": None,
    "DISCORD_PUBLIC_KEY": None,  # hex; None: /api/v1/discord/interactions answers 503
    "DISCORD_RATELIMIT": "10 per minute",  # checks per Discord user
    "DISCORD_MAX_AGE": 300,  # seconds a signed Discord request stays acceptable
    # the web page
    "CARD_IMAGES": True,  # the page shows card images from CARD_IMAGE_HOST; False: text only
    "CARD_IMAGE_HOST": None,  # None: TCGdex's asset server (webheaders.DEFAULT_IMAGE_HOST)
    # longest share link offered: gunicorn_conf.py accepts request lines up to 8190 bytes
    # ("GET " + link + " HTTP/1.1"), nginx and Apache 8 KiB by default
    "MAX_SHARE_URL_LENGTH": 8000,
    "METRICS_ENABLED": True,  # /metrics (deckcheck/service/observe.py)
}

#: environment variables that would be a second knob for one setting, with the one to use instead
ENV_REFUSED = {"DECKCHECK_CARD_DB_PATH": "DECKCHECK_DB", "DECKCHECK_PUBLIC_BASE_URL": "DECKCHECK_PUBLIC_URL"}
