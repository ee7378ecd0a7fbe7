"""deckcheck's version: the one place it is written (``pyproject.toml`` reads it from here, as a dynamic
version, so the package metadata and this string cannot differ).

A literal rather than a look-up in the package metadata: ``importlib.metadata`` (and the email package it
brings) cost more at start-up than the rest of ``deckcheck --version``. Every module that
names the version imports it from here; ``deckcheck.__version__`` is the same value.
"""

from __future__ import annotations

__version__ = "0.1.0"
#: what ``deckcheck --version`` prints (click's placeholders: the click group's version option uses it, and
#: :func:`deckcheck.cli.main` answers ``--version`` with it without importing click)
VERSION_MESSAGE = "%(prog)s, version %(version)s"


def installed_version() -> str:
    """The version string (kept as a function for the callers that ask for it lazily)."""
    return __version__
