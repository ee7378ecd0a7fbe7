"""A Black Star promo's own release for legality: a promo printing of a card of one of its series'
sets is legal no earlier than that set.

The source dates every card of a promo set on the promo set's first day (every SVP promo on
2023-03-31, every MEP promo on 2025-09-26), so a promo would be legal before it existed, and through
the reprint rule so would the set card it reprints (Team Rocket's Mewtwo ex DRI 81 through PR-SV 205
before Destined Rivals). The rules the dates follow:

- a new expansion is legal from its legal date (Play! Pokémon Tournament Rules Handbook; the pools'
  ``legal_delay``), and "promo cards such as those found in Pokémon TCG Boxes and Collections will
  be legal on the first or third Friday of the month after the product is released" (Play!
  Pokémon, "Pokémon TCG Expansion Tournament Legality Update", 2017; copy:
  https://www.chasegames.co.uk/pages/play-pokemon-news): a promo has a legal date of its own, after
  its product's release, never its promo set's first day;
- a preview promo of a card of an upcoming set (the Black Belt's Training, Team Rocket's Mewtwo ex
  and Chaos Rising promos) is legal from that set's legal date: the Play! Pokémon promo legality list
  dates them so (this code found no public copy of it to quote; the rule is the lower bound the
  data can give: such a promo is never out before the set card it previews).

So the effective release of a promo printing (a card of a set :func:`is_promo_set` names) that has
the same name key and text fingerprint as printings in non-promo sets of its series is the later of
its promo set's release and the earliest of theirs (:func:`printing_releases`). Only printings of
the promo set's series count: a promo reprinted years later in another series' collection (BW01
Snivy in McDonald's Collection 2021, _____'s Pikachu in Celebrations Classic Collection, PR-SV 87
Sprigatito ex in Ascended Heroes) was out long before it. A promo with no such counterpart keeps
its promo set's date: the source has no per-promo release (a limit of the data, README).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..cards.files import FIELDS
from ..names import name_key

#: what the name of every Black Star promo set ends with in the source (Wizards, Nintendo, DP, HGSS,
#: BW, XY, SM, SWSH, SVP and MEP Black Star Promos): the one definition of a promo set
PROMO_SET_NAME = "Black Star Promos"
_NAME, _SET, _FP = FIELDS.index("name"), FIELDS.index("set_id"), FIELDS.index("fingerprint")


def is_promo_set(record: Mapping[str, Any]) -> bool:
    """Is this set record (the database's or the source's: both have ``name``) a Black Star promo set?"""
    return str(record.get("name") or "").endswith(PROMO_SET_NAME)


def printing_releases(sets: Iterable[Mapping[str, Any]], rows: list[list[Any]]) -> dict[str, str]:
    """The promo printings of ``rows`` whose effective release is later than their set's, by card
    id (sorted), each with that release: the earliest release among the same card's printings
    (same name key and fingerprint; a fingerprint of the name alone says nothing of the text) in
    non-promo sets of the promo set's series, when it is after the promo set's. ``sets`` are the
    database's set records (``id``, ``name``, ``series``, ``release``)."""
    records = {s["id"]: s for s in sets}
    promo = {sid for sid, s in records.items() if is_promo_set(s)}
    earliest: dict[tuple[str, str, str], str] = {}
    for row in rows:
        s = records[row[_SET]]
        release, fp = s.get("release") or "", row[_FP]
        if row[_SET] in promo or not release or fp.startswith("name:"):
            continue
        key = (s.get("series") or "", name_key(row[_NAME]), fp)
        if key not in earliest or release < earliest[key]:
            earliest[key] = release
    out: dict[str, str] = {}
    for row in rows:
        if row[_SET] not in promo or row[_FP].startswith("name:"):
            continue
        s = records[row[_SET]]
        own = s.get("release") or ""
        later = earliest.get((s.get("series") or "", name_key(row[_NAME]), row[_FP]))
        if own and later and later > own:
            out[row[0]] = later
    return dict(sorted(out.items()))
