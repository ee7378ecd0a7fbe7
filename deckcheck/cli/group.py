"""The ``deckcheck`` click group: its commands are imported when they run (:class:`~deckcheck.cli.lazy.LazyGroup`)."""

from __future__ import annotations

import click

from ..version import VERSION_MESSAGE, __version__
from .lazy import LazyGroup


@click.group(
    cls=LazyGroup,
    lazy={
        "check": ".cli.check:check_cmd",
        "fmt": ".cli.fmt:fmt_cmd",
        "cards": ".cli.lookup:cards_cmd",
        "db": ".cli.db:db",
        "serve": ".cli.serve:serve",
        "sheet": ".cli.sheet:sheet_cmd",
    },
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, message=VERSION_MESSAGE)  # prog: the name main() runs the group as
def cli() -> None:
    """Validate Pokémon TCG decklists."""
