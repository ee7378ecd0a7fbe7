"""The installed version of deckcheck, read from the package metadata on first use (``__version__``).

importlib.metadata (and the email package it brings) costs more at start-up than the rest of
``import deckcheck``, so the lookup waits until something asks. Every module that names the version
imports it from here; ``deckcheck.__version__`` is the same value.
"""

from __future__ import annotations

from functools import cache


@cache
def installed_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("deckcheck")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        return "0.0.0"


def __getattr__(name: str) -> str:
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return installed_version()
