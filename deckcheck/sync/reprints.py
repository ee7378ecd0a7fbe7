"""The reprint rule's reviewed verdicts: every same-name text split has one.

Tournament Handbook 4.1.3 (reference 3.9): an older printing may be played when a
printing with the same name and *functionally identical* text is legal. The build
fingerprints each printing's normalised text (:func:`deckcheck.sync.build.fingerprint`);
printings of one card that still carry more than one fingerprint form a *split*, and
``data/reprint-groups.csv`` gives each split a reviewed verdict:

- ``identical``: the texts differ in wording only; the two groups get one fingerprint,
  so the reprint rule joins them;
- ``different``: the texts do something different; they stay apart. ``other`` may be
  ``*``: different from every group of the card that no ``identical`` row joins to it
  (Unown's letters, Alph Lithograph ONE to FOUR).

A split is decided when every two of its groups are joined by ``identical`` rows or
separated by a ``different`` row. The build fails on a split with no verdict, so a new
printing with new wording is noticed by whoever builds or syncs the database.

Which printings are "one card" (a scope): a Trainer or a Special Energy by its name; a
Pokémon by its name and its printed numbers and attack and Ability names (HP, types,
attack costs and damage, Weakness, Resistance, Retreat). Pokémon whose numbers differ are
different cards without review. Printings with no text in the source (fingerprints
``name:`` and ``rules:``) carry no text to compare and form no split.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from ..cards.files import FIELDS
from ..names import name_key
from ..wording import plural
from .tables import BuildError, read_table

TABLE = "reprint-groups.csv"
VERDICTS = ("identical", "different")
#: unreviewed splits a failing build names (the rest are counted)
MAX_LISTED = 12
_FP = FIELDS.index("fingerprint")


def scope_key(card: dict, row: list) -> tuple | None:
    """The printings a verdict may join: None for basic Energy and text-less printings."""
    fp = row[_FP]
    if fp.startswith(("name:", "rules:")):
        return None
    supertype = card["supertype"]
    if supertype == "Energy" and "Basic" in row[3]:
        return None
    if supertype != "Pokémon":
        return (supertype, name_key(card["name"]))

    def value(v) -> str:
        return str(v or "").replace("×", "x").strip()

    stats = [
        card.get("hp"),
        sorted(card.get("types") or []),
        [(a.get("name"), sorted(a.get("cost") or []), value(a.get("damage"))) for a in card.get("attacks") or []],
        [a.get("name") for a in card.get("abilities") or []],
        sorted((value(w.get("type")), value(w.get("value"))) for w in card.get("weaknesses") or []),
        sorted((value(w.get("type")), value(w.get("value"))) for w in card.get("resistances") or []),
        card.get("retreat"),
    ]
    return (supertype, name_key(card["name"]), json.dumps(stats, ensure_ascii=False))


def splits(cards: list[dict], rows: list[list]) -> dict[tuple, dict[str, list[list]]]:
    """scope -> fingerprint -> rows, for the scopes with more than one fingerprint."""
    scopes: dict[tuple, dict[str, list[list]]] = defaultdict(lambda: defaultdict(list))
    for card, row in zip(cards, rows, strict=True):
        key = scope_key(card, row)
        if key is not None:
            scopes[key][row[_FP]].append(row)
    return {k: v for k, v in scopes.items() if len(v) > 1}


class _Groups:
    """Union-find over the fingerprints of one build."""

    def __init__(self):
        self.parent: dict[str, str] = {}

    def find(self, fp: str) -> str:
        root = fp
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while fp != root:  # path compression keeps every later find short
            self.parent[fp], fp = root, self.parent.get(fp, fp)
        return root

    def union(self, a: str, b: str) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def apply_verdicts(
    cards: list[dict],
    rows: list[list],
    set_codes: dict[str, str],
    directory: Path | None = None,
    report: list[str] | None = None,
    releases: dict[str, str] | None = None,
) -> None:
    """Join the ``identical`` groups of every split (one fingerprint each) in place.

    ``cards`` and ``rows`` are parallel (source record, database row); ``set_codes`` maps a
    set id to the code a message shows, ``releases`` to its release date: a joined group
    takes the fingerprint of its newest printing's text (so that printing's fingerprint never
    depends on which older ones the source has). With a ``report`` list, undecided splits do not
    raise: every split is described there instead (``deckcheck db splits``).

    :raises BuildError: on a malformed row, a row whose printings are not one split, a
        contradiction, or a split with an undecided pair of groups.
    """
    found = splits(cards, rows)
    text_of = {row[0]: _text(card) for card, row in zip(cards, rows, strict=True)} if report is not None else {}
    verdicts = _read_verdicts(found, rows, directory)
    dates = releases or {}
    missing: list[str] = []
    for scope, groups in found.items():
        missing += _join(scope, groups, verdicts, dates, set_codes, report, text_of)
    if missing and report is None:
        more = f" (and {len(missing) - MAX_LISTED} more)" if len(missing) > MAX_LISTED else ""
        raise BuildError(
            f"{TABLE} has no verdict for {plural(len(missing), 'same-name text split')}: "
            + "; ".join(missing[:MAX_LISTED])
            + more
            + ". Compare the texts (deckcheck db splits) and add a row saying whether they are "
            "functionally identical or different."
        )


@dataclass
class _Verdicts:
    """The reviewed rows of one build, over its splits' fingerprints."""

    #: the groups ``identical`` rows join
    union: _Groups = field(default_factory=_Groups)
    #: the pairs of joined groups ``different`` rows keep apart
    separated: set[frozenset[str]] = field(default_factory=set)
    #: the fingerprints a ``different`` row with other ``*`` keeps apart from every other group
    apart_all: set[str] = field(default_factory=set)


def _read_verdicts(found: dict[tuple, dict[str, list[list]]], rows: list[list], directory: Path | None) -> _Verdicts:
    """Check every row of the table against the splits of this build and apply it.

    :raises BuildError: on a malformed row, a row whose printings are not one split, or a contradiction.
    """
    scope_of: dict[str, tuple] = {}
    fp_of: dict[str, str] = {}
    for scope, groups in found.items():
        for fp, members in groups.items():
            for row in members:
                scope_of[row[0]], fp_of[row[0]] = scope, fp
    present = {row[0]: row for row in rows}
    verdicts = _Verdicts()
    apart: list[tuple[str, str, str]] = []
    for n, entry in enumerate(read_table(TABLE, directory), 1):
        ids = (entry.get("printing") or "").strip(), (entry.get("other") or "").strip()
        verdict = (entry.get("verdict") or "").strip()
        where = f"{TABLE} row {n} ({entry.get('name')}: {ids[0]} / {ids[1]})"
        if verdict not in VERDICTS:
            raise BuildError(f"{where}: verdict must be identical or different, not {verdict!r}")
        if not (entry.get("reason") or "").strip():
            raise BuildError(f"{where}: a verdict needs a reason")
        everything = ids[1] == "*"
        if everything and verdict != "different":
            raise BuildError(f"{where}: other is * (every other group) only for the verdict different")
        if ids[0] not in present or not (everything or ids[1] in present):
            continue  # a partial source: the row is about printings it does not have
        key = name_key(entry.get("name") or "")
        for cid in ids[:1] if everything else ids:
            if name_key(present[cid][1]) != key:
                raise BuildError(f"{where}: {cid} is {present[cid][1]!r}")
            if cid not in scope_of:
                raise BuildError(
                    f"{where}: {cid} is in no split (its text matches every other printing's, or it "
                    "has none); remove the row"
                )
        if everything:
            verdicts.apart_all.add(fp_of[ids[0]])
            continue
        if scope_of[ids[0]] != scope_of[ids[1]]:
            raise BuildError(f"{where}: the two printings are not one card (a Pokémon's numbers or attacks differ)")
        if fp_of[ids[0]] == fp_of[ids[1]]:
            raise BuildError(f"{where}: the two printings already share a fingerprint; remove the row")
        if verdict == "identical":
            verdicts.union.union(fp_of[ids[0]], fp_of[ids[1]])
        else:
            apart.append((where, fp_of[ids[0]], fp_of[ids[1]]))
    for where, a, b in apart:
        ra, rb = verdicts.union.find(a), verdicts.union.find(b)
        if ra == rb:
            raise BuildError(f"{where}: marked different, but identical rows join the two groups")
        verdicts.separated.add(frozenset((ra, rb)))
    return verdicts


def _join(
    scope: tuple,
    groups: dict[str, list[list]],
    verdicts: _Verdicts,
    dates: dict[str, str],
    set_codes: dict[str, str],
    report: list[str] | None,
    text_of: dict[str, str],
) -> list[str]:
    """Give each card of one split its one fingerprint (in place); describe the split in ``report``.
    Returns the undecided pairs of groups."""
    union = verdicts.union

    def newest(members: list[list]) -> str:
        return _invert(max(dates.get(r[7]) or "" for r in members))

    roots: dict[str, list[list]] = {}
    for fp, members in groups.items():
        roots.setdefault(union.find(fp), []).extend(members)
    # the newest card first, and in each the newest text first
    comps = sorted(roots.items(), key=lambda kv: (newest(kv[1]), kv[0]))
    alone = {union.find(fp) for fp in groups if fp in verdicts.apart_all}
    missing = []
    for i, (ra, ma) in enumerate(comps):
        for rb, mb in comps[i + 1 :]:
            if ra not in alone and rb not in alone and frozenset((ra, rb)) not in verdicts.separated:
                missing.append(f"{ma[0][1]}: {_labels(ma, set_codes)} vs {_labels(mb, set_codes)}")
    if report is not None:
        undecided = len(missing)
        report.append(
            f"{comps[0][1][0][1]} ({scope[0]}): {len(groups)} texts, {plural(len(comps), 'different card')}"
            + (f", {undecided} pairs UNDECIDED" if undecided else "")
        )
        for n, (root, _members) in enumerate(comps, 1):
            for fp, members in sorted(groups.items(), key=lambda kv: (newest(kv[1]), kv[0])):
                if union.find(fp) == root:
                    report.append(f"  [{n}] {_labels(members, set_codes, 8)}: {text_of[members[0][0]]}")
    canonical = {root: _canonical(root, groups, union, dates) for root in roots}
    for fp, members in groups.items():
        for row in members:
            row[_FP] = canonical[union.find(fp)]
    return missing


def _canonical(root: str, groups: dict[str, list[list]], union: _Groups, releases: dict[str, str]) -> str:
    """One fingerprint for a joined group: its newest printing's (the smallest on a tie)."""
    newest = {
        fp: max(releases.get(r[7]) or "" for r in members) for fp, members in groups.items() if union.find(fp) == root
    }
    return min(newest, key=lambda fp: (_invert(newest[fp]), fp))


def _invert(iso: str) -> str:
    """A key that sorts later ISO dates first."""
    return "".join(chr(0x10FFFF - ord(c)) for c in iso)


def _labels(members: list[list], set_codes: dict[str, str], limit: int = 4) -> str:
    shown = [f"{set_codes.get(r[7]) or r[7]} {r[8]} ({r[0]})" for r in members[:limit]]
    return ", ".join(shown) + (f" +{len(members) - limit}" if len(members) > limit else "")


def _text(card: dict) -> str:
    """A printing's text as the source has it, on one line (for reviewers)."""
    if card["supertype"] != "Pokémon":
        kind = "/".join(card.get("subtypes") or []) or "Trainer"
        return " ".join(f"({kind}) {card.get('effect') or ''}".split())
    parts = [f"[{a.get('name')}] {a.get('effect') or ''}" for a in card.get("abilities") or []]
    parts += [f"<{a.get('name')}> {a.get('effect') or ''}" for a in card.get("attacks") or []]
    return " ".join(" | ".join(parts).split())
