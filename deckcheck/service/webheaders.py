"""The security headers of every response outside ``/api``: a strict Content-Security-Policy (no inline
script or style anywhere) whose ``img-src`` allows exactly the card image host, when card images are on."""

from __future__ import annotations

from ..patterns import Pattern

#: on every response outside /api, unless it sets its own (added by app.StandardHeaders);
#: ``{images}`` is the card image host when card images are on (:func:`page_headers`)
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'{images}; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
#: where card images come from unless CARD_IMAGE_HOST says otherwise: TCGdex's asset server
DEFAULT_IMAGE_HOST = "https://assets.tcgdex.net"


#: An origin the CSP can name: ``http(s)://name[:port]``.
_ORIGIN = Pattern(r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?")


def image_host(config) -> str | None:
    """The card image origin (``CARD_IMAGE_HOST``) when ``CARD_IMAGES`` is on, else None.

    :raises ValueError: for a host that is not ``http(s)://name[:port]`` (it goes into the CSP).
    """
    on = config.get("CARD_IMAGES", True)
    if not on or (isinstance(on, str) and on.strip().lower() in ("0", "false", "no", "off", "")):
        return None
    host = str(config.get("CARD_IMAGE_HOST") or DEFAULT_IMAGE_HOST).rstrip("/")
    if not _ORIGIN.fullmatch(host):
        raise ValueError(f"CARD_IMAGE_HOST {host!r} is not an origin such as {DEFAULT_IMAGE_HOST}")
    return host


def page_headers(config) -> dict[str, str]:
    """The security headers with the CSP's ``img-src`` allowing exactly the card image host."""
    host = image_host(config)
    headers = dict(SECURITY_HEADERS)
    headers["Content-Security-Policy"] = headers["Content-Security-Policy"].format(images=f" {host}" if host else "")
    return headers
