"""Opening-hand odds: pure arithmetic, no Flask, no card database.

The rules guide's number: the chance that a 7-card opening hand drawn from a
deck holds at least one Basic Pokémon, by the hypergeometric distribution::

    P = 1 - C(deck_size - basics, hand) / C(deck_size, hand)

With 10 Basics in 60 cards that is 74.1%; with 15 it is 88.2%.
"""

from __future__ import annotations

from math import comb

__all__ = ["p_basic_in_opening_hand", "percent"]


def _count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, not {value}")
    return value


def p_basic_in_opening_hand(basics: int, deck_size: int = 60, hand: int = 7) -> float:
    """Probability that ``hand`` cards drawn from ``deck_size`` hold at least one of ``basics``.

    A deck smaller than the hand is drawn whole (so the answer is 1 if it holds
    any Basic at all, else 0). ``basics`` may not exceed ``deck_size``.

    >>> round(p_basic_in_opening_hand(10), 3)
    0.741
    """
    basics = _count("basics", basics)
    deck_size = _count("deck_size", deck_size)
    hand = _count("hand", hand)
    if basics > deck_size:
        raise ValueError(f"basics ({basics}) cannot exceed deck_size ({deck_size})")
    drawn = min(hand, deck_size)
    # comb(n, k) is 0 when k > n: a hand that cannot avoid a Basic has probability 1
    return 1 - comb(deck_size - basics, drawn) / comb(deck_size, drawn)


def percent(p: float) -> str:
    """``0.7410...`` -> ``"74.1%"`` (one decimal, as the page shows it)."""
    return f"{p * 100:.1f}%"
