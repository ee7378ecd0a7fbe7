"""The ``deckcheck`` command line: check decklists in CI, format them, look cards up.

Exit codes live on exception classes, as in click: 0 every deck passed, 1 at
least one failed, 2 a usage error (click's ``UsageError``), 3 the card
database (or the shipped format data) is missing or unreadable.
"""

from __future__ import annotations

import sys

import click

from ..cards import DatabaseError
from .check import check_cmd
from .common import DatabaseMissing
from .db import db
from .fmt import fmt_cmd
from .lookup import cards_cmd
from .serve import serve


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="deckcheck")
def cli() -> None:
    """Validate Pokémon TCG decklists."""


for _command in (check_cmd, fmt_cmd, cards_cmd, db, serve):
    cli.add_command(_command)


def main(argv: list[str] | None = None) -> int:
    try:
        return cli.main(args=argv, prog_name="deckcheck", standalone_mode=True) or 0
    except DatabaseError as exc:  # pragma: no cover - surfaced by commands
        click.echo(f"Error: {exc}", err=True)
        return 3


__all__ = ["DatabaseMissing", "cli", "main"]

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
