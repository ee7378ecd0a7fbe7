"""Commands imported when they run (:class:`LazyGroup`), so a command pays only for its own imports."""

from __future__ import annotations

import click


class LazyGroup(click.Group):
    """A group whose commands in ``lazy`` (name -> "module:attribute", relative to the deckcheck package)
    are imported when first used: ``deckcheck --version`` imports no command, ``deckcheck check`` not the
    database builder, and ``db sync``, ``db publish`` and ``db pull`` bring requests (and marshmallow),
    which nothing else needs."""

    def __init__(self, *args, lazy: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name not in self.commands:
            import importlib

            module, attribute = self.lazy[name].split(":")
            # the table's relative names are relative to the deckcheck package
            self.add_command(getattr(importlib.import_module(module, "deckcheck"), attribute), name)
        return super().get_command(ctx, name)
