"""Rotation forecast: which cards of a list the next Standard rotation would make illegal.

For a regulation-mark format (Standard), the next rotation is the first one in the format
file dated after the check's date (an *announced* rotation: its date and lowest mark); when
the file announces none, it is *assumed* to be the usual April rotation, the lowest legal mark
moving up by one a year after the last rotation in the file, and every message says so.

Each card line legal today is checked again as of that rotation, through the same pool and
reprint rule (Tournament Handbook 4.1.3) as any check: a line whose printing rotates out
and that no functionally identical reprint keeps legal is a ``rotation-forecast`` warning;
a line whose printing rotates out but that a reprint keeps legal is ``rotation-forecast``
info naming the reprint. Never an error: the deck is legal today. Formats that do not
rotate by regulation marks get no forecast.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..formats import Format, Rotation
from ..problems import INFO, WARNING, Problem
from ..rules import label
from ..rules.notes import ROTATION_FORECAST

if TYPE_CHECKING:
    from ..cards import CardDB
    from ..deck import ResolvedLine

RULE = ROTATION_FORECAST.name


class NextRotation:
    """The rotation a forecast looks at: from ``date`` the lowest legal mark is ``lowest_mark``.
    Read-only by convention."""

    __slots__ = ("date", "lowest_mark", "announced", "source")

    date: dt.date
    lowest_mark: str
    announced: bool
    source: str

    def __init__(self, date: dt.date, lowest_mark: str, announced: bool, source: str) -> None:
        self.date, self.lowest_mark, self.announced, self.source = date, lowest_mark, announced, source

    @property
    def described(self) -> str:
        """How messages name it, saying whether it is announced or assumed."""
        if self.announced:
            return f"announced for {self.date.isoformat()}: lowest legal mark {self.lowest_mark}"
        return f"assumed: lowest legal mark {self.lowest_mark} from about {self.date.isoformat()}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "date": self.date.isoformat(),
            "lowest_mark": self.lowest_mark,
            "announced": self.announced,
            "source": self.source,
        }


def _a_year_after(day: dt.date, years: int) -> dt.date | None:
    """``day`` ``years`` years later (29 February: the 28th), None past the last year a date can have."""
    year = day.year + years
    if year > dt.MAXYEAR:
        return None
    return (
        day.replace(year=year, day=28)
        if (day.month, day.day) == (2, 29) and not calendar.isleap(year)
        else day.replace(year=year)
    )


def next_rotation(fmt: Format, on: dt.date) -> NextRotation | None:
    """The next rotation after ``on``: announced in the format file, else assumed; None when the
    format does not rotate by regulation marks (or no mark is left to rotate to)."""
    pool = fmt.pool
    if pool.kind != "regulation-marks" or not pool.rotations:
        return None
    for r in pool.rotations:
        if r.start > on:  # the next rotation; one by sets (before regulation marks) is not forecast
            return NextRotation(r.start, r.min_mark, True, r.source) if r.min_mark else None
    current = pool.min_mark(on)
    if current is None or current >= "Z":
        return None
    last = pool.rotations[-1].start
    # the first anniversary of the last rotation after ``on`` (a year after it at the earliest)
    years = max(1, on.year - last.year)
    start = _a_year_after(last, years)
    while start is not None and start <= on:
        years += 1
        start = _a_year_after(last, years)
    if start is None:  # past the last date there is: no rotation to forecast
        return None
    mark = chr(ord(current) + 1)
    return NextRotation(
        start,
        mark,
        False,
        f"An assumption: the format file announces no rotation after {on.isoformat()}, so this "
        f"assumes the usual yearly one (mark {current} out) a year after the last ({last.isoformat()}).",
    )


class Forecast:
    """What the next rotation does to a deck: its problems, the lines that rotate out and those a
    reprint keeps legal (``rotation`` None: the format does not rotate by regulation marks)."""

    __slots__ = ("rotation", "problems", "rotating", "kept_by_reprint")

    rotation: NextRotation | None
    problems: list[Problem]
    rotating: list[dict[str, Any]]
    kept_by_reprint: list[dict[str, Any]]

    def __init__(
        self,
        rotation: NextRotation | None,
        problems: list[Problem],
        rotating: list[dict[str, Any]],
        kept_by_reprint: list[dict[str, Any]],
    ) -> None:
        self.rotation, self.problems = rotation, problems
        self.rotating, self.kept_by_reprint = rotating, kept_by_reprint

    def to_dict(self) -> dict[str, Any]:
        return {
            "rotation": self.rotation.to_dict() if self.rotation else None,
            "rotating": self.rotating,
            "kept_by_reprint": self.kept_by_reprint,
        }


def forecast(lines: Iterable[ResolvedLine], fmt: Format, on: dt.date, db: CardDB) -> Forecast:
    """The forecast for a checked deck's card lines (``Report.lines``) in ``fmt`` on ``on``."""
    rotation = next_rotation(fmt, on)
    if rotation is None:
        return Forecast(None, [], [], [])
    future = fmt
    if not rotation.announced:
        pool = fmt.pool.replace(
            rotations=fmt.pool.rotations + (Rotation(rotation.date, rotation.lowest_mark, rotation.source),)
        )
        future = fmt.replace(pool=pool)  # a new format: memos of its own (formats.FORMAT_MEMOS)
    when, hint = rotation.described, None if rotation.announced else rotation.source
    problems, rotating, kept = [], [], []
    for ln in lines:
        card = ln.card
        if card is None or ln.legal_via is None or ln.ban is not None or card.is_basic_energy:
            continue  # unknown, or already not legal today: other rules say so
        if future.in_pool(card, db, rotation.date):
            continue
        via = future.legal_via(card, db, rotation.date)
        mark = card.mark or "none"
        if via is None:
            problems.append(
                Problem(
                    RULE,
                    f"{label(card)} (line {ln.line}) would not be legal after the next rotation ({when}): its "
                    f"regulation mark {mark} rotates out and no functionally identical reprint has mark "
                    f"{rotation.lowest_mark} or later.",
                    lines=(ln.line,),
                    cards=(card.id,),
                    hint=hint,
                    severity=WARNING,
                )
            )
            rotating.append({"line": ln.line, "card": card.id, "label": label(card), "mark": card.mark})
        else:
            problems.append(
                Problem(
                    RULE,
                    f"{label(card)} (line {ln.line}) stays legal after the next rotation ({when}) through its "
                    f"functionally identical reprint {label(via)} (mark {via.mark}).",
                    lines=(ln.line,),
                    cards=(card.id, via.id),
                    hint=hint,
                    severity=INFO,
                )
            )
            kept.append(
                {
                    "line": ln.line,
                    "card": card.id,
                    "label": label(card),
                    "mark": card.mark,
                    "via": via.id,
                    "via_label": label(via),
                    "via_mark": via.mark,
                }
            )
    return Forecast(rotation, problems, rotating, kept)
