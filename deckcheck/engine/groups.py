"""Problems that share one cause and one fix, gathered: the cards that rotated out on the same day.

After a rotation a real list has many cards out of the format for one reason (their regulation
mark left on one date); each keeps its own ``not-in-format`` problem, for tools, and a
:class:`~deckcheck.problems.ProblemGroup` gathers them, for a person: "9 cards on 6 lines rotated
out on 2026-04-10 (regulation mark G)", with the lines (a fix removes them all) and, per line,
the legal printing of the same name where there is one (:mod:`deckcheck.rules.recommend`).

A card alone in rotating out on its date is a group of one: the same block and the same fix (removing
its line), whether one card or nine left the format that day.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..problems import ProblemGroup
from ..rules.recommend import recommended
from ..wording import noun

if TYPE_CHECKING:
    from ..cards import Card, CardDB
    from ..formats import Format
    from ..problems import Problem

#: the kind of a group of cards whose regulation mark rotated out
ROTATED_OUT = "rotated-out"
_RULE = "not-in-format"


def left_on(fmt: Format, mark: str | None, on: dt.date) -> tuple[dt.date, bool] | None:
    """When a card with regulation mark ``mark`` left ``fmt``, as of ``on``: ``(date, False)``, the
    rotation that made the lowest legal mark higher than ``mark``; ``(date, True)`` when the format file
    tells no more than that it left by then (a mark older than its first rotation, or a card from
    before regulation marks: the first rotation by mark); None when the mark has not rotated out on
    ``on`` (or the format does not rotate by regulation marks)."""
    pool = fmt.pool
    floor = pool.min_mark(on)
    if pool.kind != "regulation-marks" or floor is None or (mark is not None and mark >= floor):
        return None
    earlier = False  # a rotation before: the card's mark (or its set) was in the pool then
    for r in pool.rotations:  # in date order
        if r.start > on:
            break
        if r.min_mark and (mark is None or r.min_mark > mark):
            return r.start, mark is None or not earlier
        earlier = True
    return None  # pragma: no cover - the floor above is one of these rotations' marks


def rotation_groups(
    problems: Sequence[Problem], lines: Sequence[Any], fmt: Format, db: CardDB, on: dt.date
) -> list[ProblemGroup]:
    """The groups of ``not-in-format`` problems (of a report, in its order) whose cards rotated out
    on the same date, in date order; ``lines`` are the report's card lines."""
    by_line = {ln.line: ln for ln in lines}
    gathered: dict[tuple[dt.date, bool], list[tuple[int, Any]]] = {}
    for i, problem in enumerate(problems):
        if problem.rule != _RULE or len(problem.lines) != 1:
            continue
        ln = by_line.get(problem.lines[0])
        card: Card | None = ln.card if ln is not None else None
        if card is None:
            continue
        when = left_on(fmt, card.mark, on)
        if when is not None:
            gathered.setdefault(when, []).append((i, ln))
    groups = []
    for (day, before), members in sorted(gathered.items()):
        marks = sorted({ln.card.mark for _, ln in members if ln.card.mark})
        copies = sum(ln.count for _, ln in members)
        replacements = []
        for _, ln in members:
            other = recommended(ln.card.name, fmt, db, on)
            replacements.append({"line": ln.line, "card": ln.card.id, "legal": other.id if other else None})
        mark_words = f"{noun(len(marks), 'regulation mark')} {', '.join(marks)}" if marks else "no regulation mark"
        if any(not ln.card.mark for _, ln in members) and marks:
            mark_words += ", or none"
        groups.append(
            ProblemGroup(
                kind=ROTATED_OUT,
                rule=_RULE,
                message=(
                    f"{copies:,} {noun(copies, 'card')} on "
                    f"{len(members):,} {noun(len(members), 'line')} rotated out "
                    f"{'before' if before else 'on'} {day.isoformat()} ({mark_words})."
                ),
                date=day.isoformat(),
                before=before,
                marks=tuple(marks),
                problems=tuple(i for i, _ in members),
                lines=tuple(ln.line for _, ln in members),
                cards=tuple(ln.card.id for _, ln in members),
                replacements=tuple(replacements),
            )
        )
    return groups
