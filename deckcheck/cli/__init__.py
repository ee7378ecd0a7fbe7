"""The ``deckcheck`` command line: check decklists in CI, format them, look cards up.

Exit codes live on exception classes, as in click: 0 every deck passed, 1 at
least one failed, 2 a usage error (click's ``UsageError``), 3 the card
database (or the shipped format data) is missing or unreadable.
"""

from __future__ import annotations

import sys

import click

from .lazy import LazyGroup


@click.group(
    cls=LazyGroup,
    lazy={
        "check": ".cli.check:check_cmd",
        "fmt": ".cli.fmt:fmt_cmd",
        "cards": ".cli.lookup:cards_cmd",
        "db": ".cli.db:db",
        "serve": ".cli.serve:serve",
    },
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(package_name="deckcheck")
def cli() -> None:
    """Validate Pokémon TCG decklists."""


def main(argv: list[str] | None = None) -> int:
    try:
        return cli.main(args=argv, prog_name="deckcheck", standalone_mode=True) or 0
    except Exception as exc:  # pragma: no cover - surfaced by commands
        from ..cards import DatabaseError

        if not isinstance(exc, DatabaseError):
            raise
        click.echo(f"Error: {exc}", err=True)
        return 3


def __getattr__(name: str) -> object:
    """``DatabaseMissing``, from :mod:`deckcheck.cli.common` on first use (it imports the core)."""
    if name != "DatabaseMissing":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .common import DatabaseMissing

    return DatabaseMissing


__all__ = ["DatabaseMissing", "cli", "main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
