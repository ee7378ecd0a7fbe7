"""The HTTP service, an edge over the core: the Flask app (:mod:`.app`), the JSON API, the web page, the
Discord endpoint, rate limits, metrics and logs, and the gunicorn settings and worker that serve them.

Nothing here is imported by the core (``deckcheck.names``, ``decklist``, ``cards``, ``engine``...): the
import contract in ``pyproject.toml`` (``lint-imports``) holds it. This ``__init__`` imports nothing, so
``import deckcheck.service.paths`` (the API client's ``/api`` prefix) costs no Flask.
"""
