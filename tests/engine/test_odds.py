"""The opening-hand probability (hypergeometric), against the rules guide's numbers."""

from math import comb

import pytest

from deckcheck.engine.odds import p_basic_in_opening_hand, percent


@pytest.mark.parametrize("basics, expected", [(10, 0.741), (15, 0.882)])
def test_rules_guide_values(basics, expected):
    assert round(p_basic_in_opening_hand(basics), 3) == expected


def test_rules_guide_values_as_shown():
    assert percent(p_basic_in_opening_hand(10)) == "74.1%"
    assert percent(p_basic_in_opening_hand(15)) == "88.2%"


def test_no_basics_never_opens():
    assert p_basic_in_opening_hand(0) == 0


def test_one_basic_is_hand_over_deck():
    # exactly one Basic: it is in the hand with probability 7/60
    assert p_basic_in_opening_hand(1) == pytest.approx(7 / 60)


def test_too_many_basics_to_miss():
    # 54 Basics in 60 leave only 6 other cards: a 7-card hand must hold one
    assert p_basic_in_opening_hand(54) == 1
    assert p_basic_in_opening_hand(53) == pytest.approx(1 - 1 / comb(60, 7))
    assert p_basic_in_opening_hand(60) == 1


def test_deck_smaller_than_hand_is_drawn_whole():
    assert p_basic_in_opening_hand(1, deck_size=5) == 1
    assert p_basic_in_opening_hand(0, deck_size=5) == 0
    assert p_basic_in_opening_hand(0, deck_size=0) == 0


def test_other_sizes():
    assert p_basic_in_opening_hand(4, deck_size=40, hand=7) == pytest.approx(1 - comb(36, 7) / comb(40, 7))
    assert p_basic_in_opening_hand(10, hand=0) == 0


def test_monotonic_in_basics():
    ps = [p_basic_in_opening_hand(b) for b in range(61)]
    assert ps == sorted(ps)


@pytest.mark.parametrize("args", [(-1,), (61,), (5, -1), (5, 60, -1)])
def test_bad_values(args):
    with pytest.raises(ValueError):
        p_basic_in_opening_hand(*args)


@pytest.mark.parametrize("args", [(1.5,), (True,), ("10",), (10, 60.0)])
def test_bad_types(args):
    with pytest.raises(TypeError):
        p_basic_in_opening_hand(*args)


def test_percent_one_decimal():
    assert percent(0) == "0.0%"
    assert percent(1) == "100.0%"
    assert percent(0.12345) == "12.3%"
