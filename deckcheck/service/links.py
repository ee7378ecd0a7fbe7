"""Absolute links the service writes: the page's share link, the chat replies' and Discord's links, and the
``Location`` of a redirect werkzeug makes itself (``/static//x`` to ``/static/x``).

They are built on the configured public base URL, ``PUBLIC_URL`` (``DECKCHECK_PUBLIC_URL``, e.g.
``https://decks.example.org``), never on the request's ``Host`` header: any client sets that header, and a
link built on it would send the people it is shared with to the client's host. Without ``PUBLIC_URL`` links
are root-relative (the page, redirects) or left out (chat replies, which have no page to be relative to).
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import current_app, request


def check_public_url(value: object) -> str | None:
    """``PUBLIC_URL`` as links use it (no trailing ``/``), or None when unset.

    :raises ValueError: for anything but ``http(s)://host[:port][/path]`` (no query, fragment or user),
        at start-up.
    """
    if value is None or value == "":
        return None
    text = str(value).strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018  (a malformed port raises here)
    except ValueError:
        parts = None
    if (
        parts is None
        or parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.username is not None
        or parts.query
        or parts.fragment
        or not text.isascii()
        or any(c.isspace() for c in text)
    ):
        raise ValueError(
            f"PUBLIC_URL (DECKCHECK_PUBLIC_URL) {text!r} is not a public base URL such as https://decks.example.org"
        )
    return text.rstrip("/")


def public_base() -> str | None:
    """The public base URL (``PUBLIC_URL``, checked at start-up), or None."""
    base: str | None = current_app.config["PUBLIC_URL"]
    return base


def absolute(path: str) -> str | None:
    """The public address of ``path`` (root-relative, as ``url_for`` gives it: under the app's script
    root), or None without ``PUBLIC_URL``."""
    base = public_base()
    if base is None:
        return None
    return base + path.removeprefix(request.script_root)


def relocate(location: str, environ: dict, base: str | None) -> str:
    """A redirect's address with the request's own host taken out: on ``base`` (``PUBLIC_URL``), or
    root-relative. werkzeug writes the host of the ``Host`` header into the redirects it makes
    (:meth:`deckcheck.service.app.DeckcheckFlask.raise_routing_exception`)."""
    scheme = environ.get("wsgi.url_scheme", "http")
    host = environ.get("HTTP_HOST") or environ.get("SERVER_NAME", "")
    own = f"{scheme}://{host}"
    if not location.startswith(own) or location[len(own) : len(own) + 1] not in ("/", "?", ""):
        return location
    path = location[len(own) :] or "/"
    if base is None:
        return path
    return base + path.removeprefix(environ.get("SCRIPT_NAME", ""))
