"""How messages word counts: the one home of :func:`plural` and :func:`noun` (rules, reports and chat answers)."""

from __future__ import annotations


def noun(n: int, word: str, many: str | None = None) -> str:
    """The word for ``n`` of a thing: ``line`` for 1, ``lines`` otherwise; ``many`` for an irregular plural."""
    return word if n == 1 else (many or word + "s")


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 card``, ``2 cards``; ``many`` for an irregular plural (``plural(2, "copy", "copies")``)."""
    return f"{n} {noun(n, word, many)}"
