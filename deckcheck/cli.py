"""The ``deckcheck`` command line."""

from __future__ import annotations

import sys

import click

from . import build as _build
from .cards import DatabaseError, default_path


class DatabaseMissing(click.ClickException):
    """The card database cannot be read: exit code 3."""

    exit_code = 3


@click.group()
@click.version_option(package_name="deckcheck")
def cli() -> None:
    """Validate Pokémon TCG decklists."""


@cli.group()
def db() -> None:
    """Build and inspect the card database."""


@db.command("build")
@click.option("--from", "source", required=True, type=click.Path(exists=True, dir_okay=False),
              help="Merged card catalogue (cards.json.gz).")
@click.option("--output", type=click.Path(dir_okay=False), default=None,
              help="Where to write the database (default: the service's database path).")
def db_build(source: str, output: str | None) -> None:
    """Build the shipped card database from a merged catalogue."""
    try:
        db_dict = _build.build(_build.load_source(source))
    except _build.BuildError as exc:
        raise DatabaseMissing(str(exc)) from exc
    target = output or str(default_path())
    _build.write_database(db_dict, target)
    meta = db_dict["meta"]
    click.echo(f"Wrote {target}: {meta['cards']} cards in {meta['sets']} sets.")


from .serve import serve  # noqa: E402
cli.add_command(serve)


def main(argv: list[str] | None = None) -> int:
    try:
        return cli.main(args=argv, prog_name="deckcheck", standalone_mode=True) or 0
    except DatabaseError as exc:  # pragma: no cover - surfaced by commands
        click.echo(f"Error: {exc}", err=True)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
