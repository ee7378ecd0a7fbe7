"""Discord's request signatures: Ed25519 over ``X-Signature-Timestamp`` + the raw body, with the
application's public key, and a timestamp within ``DISCORD_MAX_AGE`` seconds of the server's clock."""

from __future__ import annotations

import re
import time

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from ..memo import memoise
from ..patterns import Pattern
from .settings import DEFAULTS

#: the longest DISCORD_MAX_AGE taken: a day (Discord's own requests are seconds old)
MAX_SIGNATURE_AGE = 86_400


#: A Unix time in whole seconds, as Discord sends it: up to 12 digits (the year 33658).
_TIMESTAMP = Pattern(r"[0-9]{1,12}")


@memoise(4)
def verify_key(public_key_hex: str) -> VerifyKey:
    """The application's public key; ValueError unless it is 64 hexadecimal characters."""
    value = public_key_hex.strip()
    if not re.fullmatch(r"[0-9a-fA-F]{64}", value):
        raise ValueError(
            "DISCORD_PUBLIC_KEY must be the application's public key: 64 hexadecimal characters "
            "(Discord Developer Portal, General Information, Public Key)"
        )
    return VerifyKey(bytes.fromhex(value))


def verify(
    public_key_hex: str,
    signature: str | None,
    timestamp: str | None,
    body: bytes,
    now: float | None = None,
    max_age: float = DEFAULTS["DISCORD_MAX_AGE"],
) -> str | None:
    """Why the request is not Discord's (a sentence), or None when the signature and timestamp are good."""
    if not signature or not timestamp:
        return "The request is not signed: X-Signature-Ed25519 and X-Signature-Timestamp are required."
    if not re.fullmatch(r"[0-9a-fA-F]{128}", signature.strip()):
        return "X-Signature-Ed25519 is not an Ed25519 signature (128 hexadecimal characters)."
    try:
        verify_key(public_key_hex).verify(timestamp.encode("utf-8") + body, bytes.fromhex(signature.strip()))
    except BadSignatureError:
        return "The signature does not match the request's timestamp and body."
    if not _TIMESTAMP.fullmatch(timestamp.strip()):  # a number a clock can hold, not 10**400
        return "X-Signature-Timestamp is not a Unix time in seconds."
    sent = int(timestamp.strip())
    age = (time.time() if now is None else now) - sent
    if abs(age) > max_age:
        return (
            f"The request's timestamp is {abs(int(age))} seconds {'old' if age > 0 else 'in the future'} "
            f"(at most {int(max_age)} allowed): a replayed or delayed request."
        )
    return None
