"""The effective release of Black Star promos (deckcheck.sync.promos): a promo of a card of one of
its series' sets is released with the earliest such set; other promos keep their promo set's date."""

from __future__ import annotations

from deckcheck.sync.promos import is_promo_set, printing_releases

_SETS = [
    {"id": "svp", "name": "SVP Black Star Promos", "series": "sv", "release": "2023-03-31"},
    {"id": "sv1", "name": "Scarlet & Violet", "series": "sv", "release": "2023-03-31"},
    {"id": "sv8", "name": "Later Set", "series": "sv", "release": "2025-01-17"},
    {"id": "sv9", "name": "Even Later Set", "series": "sv", "release": "2025-05-30"},
    {"id": "me2", "name": "Other Series Set", "series": "me", "release": "2026-01-30"},
    {"id": "nodate", "name": "Undated Set", "series": "sv", "release": None},
]


def _row(cid: str, name: str, set_id: str, fp: str) -> list:
    return [cid, name, "Trainer", ["Supporter"], None, [], "H", set_id, cid.rsplit("-", 1)[1], None, fp]


def test_only_black_star_promo_sets_are_promo_sets():
    assert [s["id"] for s in _SETS if is_promo_set(s)] == ["svp"]
    assert not is_promo_set({"name": "Miscellaneous Promos"}) and not is_promo_set({"name": "W Promotional"})


def test_a_promo_takes_the_earliest_release_of_the_same_card_in_its_series_non_promo_sets():
    rows = [
        _row("svp-1", "Black Belt's Training", "svp", "aaaa"),
        _row("sv9-1", "Black Belt's Training", "sv9", "aaaa"),
        _row("sv8-1", "Black Belt's Training", "sv8", "aaaa"),
        _row("svp-2", "Nest Ball", "svp", "bbbb"),  # in the first set: no later date
        _row("sv1-2", "Nest Ball", "sv1", "bbbb"),
        _row("svp-3", "Pikachu with Hat", "svp", "cccc"),  # a promo only
        _row("svp-4", "Sprigatito ex", "svp", "dddd"),  # reprinted in another series: not a preview
        _row("me2-4", "Sprigatito ex", "me2", "dddd"),
        _row("svp-5", "Judge", "svp", "eeee"),  # the same name with other text: another card
        _row("sv9-5", "Judge", "sv9", "ffff"),
        _row("svp-6", "Energy", "svp", "name:1"),  # no text known: nothing said
        _row("sv9-6", "Energy", "sv9", "name:1"),
        _row("svp-7", "Undated", "svp", "gggg"),
        _row("nodate-7", "Undated", "nodate", "gggg"),
    ]
    assert printing_releases(_SETS, rows) == {"svp-1": "2025-01-17"}
