"""The share-link encoding of a decklist: the exact text, zlib-compressed and base64url-encoded.

The web page's links (``/?d=...``) and the chat replies' links (:func:`deckcheck.chat.share_url`) use it;
the page decodes it (``deckcheck.service.web``, which turns a :class:`LinkError` into its message).
"""

from __future__ import annotations

import base64
import binascii
import zlib

from ..patterns import Pattern

_TOKEN = Pattern(r"[A-Za-z0-9_-]+")


class LinkError(ValueError):
    """A token that is no share link (``too_big`` False), or one that would expand past the limit."""

    def __init__(self, too_big: bool = False) -> None:
        super().__init__("share link too large" if too_big else "broken share link")
        self.too_big = too_big


def encode_deck(text: str) -> str:
    """The exact text, zlib-compressed and base64url-encoded without padding."""
    return base64.urlsafe_b64encode(zlib.compress(text.encode("utf-8"), 9)).rstrip(b"=").decode("ascii")


def decode_deck(token: str, max_bytes: int) -> str:
    """Inverse of :func:`encode_deck`; anything else is a :class:`LinkError`, never a crash.

    Decompression stops at ``max_bytes`` so a small link cannot expand into a
    huge text.
    """
    # zlib output is at most ~0.1% bigger than its input, and base64 adds a third
    if not token or len(token) > 2 * max_bytes + 64 or not _TOKEN.fullmatch(token):
        raise LinkError()
    try:
        data = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (binascii.Error, ValueError):
        raise LinkError() from None
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(data, max_bytes + 1)
    except zlib.error:
        raise LinkError() from None
    if len(raw) > max_bytes or inflater.unconsumed_tail:
        raise LinkError(too_big=True)
    if not inflater.eof or inflater.unused_data:
        raise LinkError()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise LinkError() from None
