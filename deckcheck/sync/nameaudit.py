"""The name-key audit: no two printed names share a key unless a reviewed table says so.

``deckcheck db build`` and ``db sync`` run :func:`audit` over every printing they
build. It groups the distinct printed names of the pool by :func:`names.name_key`;
every pair of names in one group must be joined by the rows of
``data/name-merges.csv`` (``name,same_as,reason``: a row joins two names, and rows
chain, so ``Gengar LV.X -> Gengar`` and ``Gengar LV.43 -> Gengar`` allow the three
pairs). Every printed name with a bracket or a parenthesis must have its row in
``data/name-parts.csv`` (``name,part,decision,reason``) and the key must treat the
part as that row decides:

- ``part``: the bracketed words stay in the key (``PokéDex (HANDY909)``);
- ``dropped``: the key is that of the name without it (a subtitle or label);
- ``translation``: the key is that of the bracketed words (``ナッシー[Exeggutor]``).

A name that is not a Pokémon and ends in ``δ`` must keep it (``Mystery Plate δ``);
only a Pokémon's Delta Species mark is dropped.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..names import name_key

DECISIONS = ("part", "dropped", "translation")


class NameAuditError(ValueError):
    """Printed names the key merges, or treats, in a way no reviewed row allows."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("name audit failed:\n  " + "\n  ".join(problems))
        self.problems = problems


def _groups(merges: Iterable[dict]) -> dict[str, str]:
    """Union-find over the merge rows: each name -> the representative of its set."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        root = x
        while parent.get(root, root) != root:
            root = parent[root]
        while x != root:  # path compression keeps later finds short
            parent[x], x = root, parent[x]
        return root

    for row in merges:
        parent.setdefault(row["name"], row["name"])
        parent.setdefault(row["same_as"], row["same_as"])
        a, b = find(row["name"]), find(row["same_as"])
        if a != b:
            parent[a] = b
    return {name: find(name) for name in parent}


def audit(cards: Iterable[tuple[str, str]], merges: list[dict], parts: list[dict]) -> list[str]:
    """Problems with the key over ``(printed name, supertype)`` pairs; empty when all is reviewed."""
    problems = []
    for row in merges:
        if not (row.get("reason") or "").strip():
            problems.append(f"name-merges.csv: the row {row['name']!r} -> {row['same_as']!r} gives no reason")
    for row in parts:
        if row.get("decision") not in DECISIONS or not (row.get("reason") or "").strip():
            problems.append(
                f"name-parts.csv: the row for {row.get('name')!r} needs a decision "
                f"({', '.join(DECISIONS)}) and a reason"
            )
    reviewed = _groups(merges)
    reviewed_parts = {row["name"]: row for row in parts}
    by_key: dict[str, set[str]] = {}
    kinds: dict[str, set[str]] = {}
    for name, supertype in cards:
        by_key.setdefault(name_key(name), set()).add(name)
        kinds.setdefault(name, set()).add(supertype)
    for key, group in sorted(by_key.items()):
        if len(group) < 2:
            continue
        names = sorted(group)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                if a not in reviewed or reviewed.get(a) != reviewed.get(b):
                    problems.append(
                        f"unreviewed merge: {a!r} and {b!r} share the key {key!r} "
                        "(add a row to data/name-merges.csv if they are one name, else fix the key)"
                    )
    for name, supertypes in sorted(kinds.items()):
        problems.extend(_part_problems(name, reviewed_parts.get(name)))
        if name.rstrip().endswith("δ") and supertypes != {"Pokémon"} and "δ" not in name_key(name):
            problems.append(f"{name!r} is not a Pokémon but its key {name_key(name)!r} drops its δ")
    return problems


def _part_problems(name: str, row: dict | None) -> list[str]:
    bracket = "(" if "(" in name else "[" if "[" in name else None
    if bracket is None:
        return []
    if row is None:
        return [f"unreviewed name part: {name!r} has a bracketed part and no row in data/name-parts.csv"]
    close = ")" if bracket == "(" else "]"
    head, _, rest = name.partition(bracket)
    inner = rest.partition(close)[0]
    if row["part"] != inner:
        return [f"name-parts.csv: the part of {name!r} is {inner!r}, the row says {row['part']!r}"]
    key = name_key(name)
    expected = {"dropped": name_key(head), "translation": name_key(inner)}.get(row["decision"])
    if expected is not None and key != expected:
        return [f"{name!r}: the key {key!r} should be {expected!r} ({row['decision']})"]
    if row["decision"] == "part" and (not name_key(inner) or name_key(inner) not in key):
        return [f"{name!r}: the key {key!r} loses the part {inner!r}"]
    return []


def check(cards: Iterable[tuple[str, str]], merges: list[dict], parts: list[dict]) -> None:
    """:func:`audit`, raising :class:`NameAuditError` with every problem."""
    problems = audit(cards, merges, parts)
    if problems:
        raise NameAuditError(problems)
