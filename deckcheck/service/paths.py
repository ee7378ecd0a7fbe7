"""Where the API lives: the ``/api`` prefix and its version, defined once for the app, the error handlers, the
rate limits, CORS, the blueprints and the API client (:mod:`deckcheck.client`). Imports nothing."""

#: everything under it answers JSON (errors too), gets CORS and ``X-Content-Type-Options``
API_ROOT = "/api"
#: the current version of the API: the blueprints' prefix, rate-limited as one bucket
API_PREFIX = API_ROOT + "/v1"


def is_api_path(path: str) -> bool:
    """Whether a request path is the API's (``/api`` or below it)."""
    return path == API_ROOT or path.startswith(API_ROOT + "/")
