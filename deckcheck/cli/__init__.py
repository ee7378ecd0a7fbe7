"""The ``deckcheck`` command line: check decklists in CI, format them, look cards up.

Exit codes live on exception classes, as in click: 0 every deck passed, 1 at
least one failed, 2 a usage error (click's ``UsageError``), 3 the card
database (or the shipped format data) is missing or unreadable.

The click group is :mod:`deckcheck.cli.group` (``deckcheck.cli.cli``, imported on first use):
``deckcheck --version`` alone is answered by :func:`main` without importing click, with the message
click's version option prints: the quickest call pays for no import it does not use.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

PROG_NAME = "deckcheck"


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        from ..version import VERSION_MESSAGE, __version__

        sys.stdout.write(VERSION_MESSAGE % {"prog": PROG_NAME, "version": __version__} + "\n")
        return 0
    import click

    from .group import cli

    try:
        return cli.main(args=args, prog_name=PROG_NAME, standalone_mode=True) or 0
    except Exception as exc:  # pragma: no cover - surfaced by commands
        from ..cards import DatabaseError

        if not isinstance(exc, DatabaseError):
            raise
        click.echo(f"Error: {exc}", err=True)
        return 3


def __getattr__(name: str) -> object:
    """``cli`` (the click group) and ``DatabaseMissing`` (from :mod:`deckcheck.cli.common`, which imports the
    core), on first use."""
    if name == "cli":
        from .group import cli

        return cli
    if name == "DatabaseMissing":
        from .common import DatabaseMissing

        return DatabaseMissing
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DatabaseMissing", "cli", "main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
