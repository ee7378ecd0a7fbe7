"""The reviewed data tables of ``data/`` held against the source at a build: the ACE SPEC list,
the functional exceptions, the name audit, the deck-building clauses (and the printings kept out of
tournaments) and the Evolution bypasses.
A card the scans find that a table lacks, or a row that names no card, is a
:class:`~deckcheck.sync.tables.BuildError`: the builder (:func:`deckcheck.sync.build.build`) fails
rather than ship what nobody reviewed."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ..cards import bypass, deckrules
from ..cards.files import FIELDS
from ..names import name_key
from . import nameaudit
from .tables import BuildError, read_table


def ace_spec_ids(cards: list[dict], sets_by_code: dict[str, list[str]], directory: Path | None) -> set[str]:
    """Printing ids listed in ``data/ace-spec.csv`` (the Black & White ones carry no flag)."""
    wanted = {}
    for row in read_table("ace-spec.csv", directory):
        for set_id in sets_by_code.get(row["set_code"].upper(), []):
            wanted[(set_id, row["number"].lstrip("0"))] = row["name"]
    found, matched = set(), set()
    for card in cards:
        key = (card["set_id"], str(card.get("number", "")).lstrip("0"))
        if key in wanted:
            if name_key(card["name"]) != name_key(wanted[key]):
                raise BuildError(f"ace-spec.csv names {wanted[key]!r} but {card['id']} is {card['name']!r}")
            found.add(card["id"])
            matched.add(wanted[key])
    missing = set(wanted.values()) - matched
    if missing:
        raise BuildError(f"ace-spec.csv rows match no card: {sorted(missing)}")
    return found


def _printing_rows(rows: list[list], sets_by_code: dict[str, list[str]], code: str, number: str) -> list[list] | None:
    """Rows of one printing by set code and number; None when the source has no set with that code."""
    set_ids = sets_by_code.get(code.upper())
    if not set_ids:
        return None
    number = number.lstrip("0").upper()
    return [r for r in rows if r[7] in set_ids and r[8].lstrip("0").upper() == number]


def apply_exceptions(rows: list[list], sets_by_code: dict[str, list[str]], directory: Path | None) -> list[tuple]:
    """Apply ``data/functional-exceptions.csv``: split variants off; answer the reviewed pairs
    that must keep apart (for :func:`check_apart`).

    A row whose set is not in the source is skipped (a partial source still builds); a row
    whose set is present but whose printing or name is wrong is a :class:`BuildError`.
    """
    fp_at = FIELDS.index("fingerprint")
    pairs = []
    for row in read_table("functional-exceptions.csv", directory):
        where = f"functional-exceptions.csv: {row['name']} {row['set_code']} {row['number']}"
        found = _printing_rows(rows, sets_by_code, row["set_code"], row["number"])
        if found is None:
            continue
        if not found:
            raise BuildError(f"{where}: no such printing in the source")
        key = name_key(row["name"])
        named = [r for r in found if name_key(r[1]) == key]  # a code can name several sets (TR)
        if not named:
            raise BuildError(f"{where}: that printing is {found[0][1]!r}")
        for r in named:
            if row.get("variant"):
                r[fp_at] = hashlib.sha1(f"{r[fp_at]}|{row['variant']}".encode()).hexdigest()[:16]
        if row.get("not_same_as"):
            code, _, number = row["not_same_as"].rpartition(" ")
            other = _printing_rows(rows, sets_by_code, code, number)
            other = other if other is None else [r for r in other if name_key(r[1]) == key]
            if other == []:
                raise BuildError(f"{where}: not_same_as {row['not_same_as']} is no printing of that name in the source")
            if other:
                pairs.append((where, row["not_same_as"], named, other))
    return pairs


def check_apart(pairs: list[tuple]) -> None:
    fp_at = FIELDS.index("fingerprint")
    for where, other_label, found, other in pairs:
        if {r[fp_at] for r in found} & {r[fp_at] for r in other}:
            raise BuildError(f"{where} and {other_label} still share a fingerprint; give the row a variant")


def audit_names(rows: list[list], directory: Path | None = None) -> None:
    """Fail on any two printed names the name key merges without a reviewed row
    (``data/name-merges.csv``, ``data/name-parts.csv``; see :mod:`deckcheck.sync.nameaudit`)."""
    try:
        nameaudit.check(
            ((r[1], r[2]) for r in rows),
            read_table("name-merges.csv", directory),
            read_table("name-parts.csv", directory),
        )
    except nameaudit.NameAuditError as exc:
        raise BuildError(str(exc)) from exc


#: the subtype a reviewed row's card must carry once the data fixes are applied
_KIND_SUBTYPE = {
    "ace-spec": "ACE SPEC",
    "radiant": "Radiant",
    "prism-star": "Prism Star",
    "star-limit": "Star",
    "special-energy": "Special",
    "basic-pokemon": "Basic",
}


def deck_rule_categories(cards: list[dict], table: list) -> dict[str, list[str]]:
    """Scan every card for deck-building clauses and category traps (:mod:`deckcheck.cards.deckrules`);
    any finding missing from ``data/deck-rules.csv`` is a :class:`BuildError`. Returns card id ->
    the kinds of its rows."""
    scanned = []
    try:
        for card in cards:
            scanned.extend(deckrules.scan_card(card, list(card.get("subtypes") or [])))
    except ValueError as exc:
        raise BuildError(
            f"{exc}; review it and add a row to {deckrules.TABLE} (deckcheck/cards/deckrules.py)"
        ) from None
    errors = deckrules.compare(scanned, table, {card["id"]: card["name"] for card in cards})
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        raise BuildError(f"{len(errors)} deck-building finding(s) disagree with {deckrules.TABLE}:\n  {shown}")
    out: dict[str, list[str]] = {}
    for row in table:
        out.setdefault(row.id, []).append(row.kind)
    return out


def keep_apart_not_tournament(rows: list[list], categories: dict[str, list[str]]) -> None:
    """Give every printing that says "This card cannot be used at official tournaments" (a
    ``not-tournament`` row of ``data/deck-rules.csv``) a fingerprint of its own, in place: that
    sentence is printed text no other printing has, so the reprint rule never joins it to one, in
    either direction (it makes no printing legal, and no printing makes it legal). Printings with
    the same text and the same sentence keep one fingerprint. Done after the reviewed verdicts,
    which no verdict can undo; a printing with no text (``name:``, ``rules:``) is left as it is:
    the reprint rule joins none of those."""
    fp_at = FIELDS.index("fingerprint")
    for row in rows:
        fp = row[fp_at]
        if "not-tournament" in categories.get(row[0], ()) and not fp.startswith(("name:", "rules:")):
            row[fp_at] = hashlib.sha1(f"{fp}|not-tournament".encode()).hexdigest()[:16]


def check_bypasses(cards: list[dict], table: list[bypass.Finding]) -> None:
    """Scan every card for sentences that reach Evolution Pokémon without evolving
    (:mod:`deckcheck.cards.bypass`); a finding missing from ``data/evolution-bypass.csv``, or a row the
    scan no longer finds or finds on other printings, is a :class:`BuildError`."""
    evolutions = bypass.evolution_names(cards)
    scanned = [finding for card in cards for finding in bypass.scan_card(card, evolutions)]
    with_text = {card["id"] for card in cards if any(True for _ in bypass.texts(card))}
    errors = bypass.compare(scanned, table, with_text)
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        raise BuildError(f"{len(errors)} finding(s) disagree with {bypass.TABLE}:\n  {shown}")


def apply_category(card: dict, subtypes: list[str], kinds) -> None:
    """A reviewed row's category, applied to ``subtypes`` in place: a Baby Pokémon is Basic, a
    Pokémon ☆ is ``Star``; the other kinds are checked to be right already."""
    for kind in kinds:
        wanted = _KIND_SUBTYPE.get(kind)
        if wanted is None or wanted in subtypes:
            continue
        if kind == "basic-pokemon":
            subtypes.insert(0, "Basic")
        elif kind == "star-limit":
            subtypes.append("Star")
        else:
            raise BuildError(
                f"{deckrules.TABLE}: {card['id']} {card['name']} is listed as {kind} but has no "
                f"{wanted!r} subtype after the data fixes ({subtypes})"
            )
