"""How messages word counts: the one home of :func:`plural` (rules, reports and chat answers)."""

from __future__ import annotations


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 card``, ``2 cards``; ``many`` for an irregular plural (``plural(2, "copy", "copies")``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"
