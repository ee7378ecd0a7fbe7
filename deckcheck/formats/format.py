"""A format: its rules with their parameters, its pool and bans (:class:`Format`, a frozen value
read from its file by :mod:`deckcheck.formats.loader`), the plan of the rules it runs, and its
public description. What it makes legal is its base :class:`~deckcheck.formats.legality.FormatLegality`."""

from __future__ import annotations

import datetime as dt
from operator import attrgetter
from typing import Any

from ..registry import ALWAYS, REGISTRY
from ..value import Value
from .legality import FormatLegality
from .memos import RulePlan, memos_of
from .pool import Ban, Pool, Rotation


def _nothing(deck: object) -> tuple[Any, ...]:
    return ()


class Format(FormatLegality, Value):
    """One format as its file defines it: a value, read-only by convention (its memos are held beside it,
    :mod:`deckcheck.formats.memos`); :meth:`~deckcheck.value.Value.replace` makes a changed copy."""

    __match_args__ = (
        "id",
        "name",
        "description",
        "rules",
        "pool",
        "bans",
        "sources",
        "extends",
        "path",
        "rule_sources",
    )

    id: str
    name: str
    description: str
    rules: dict[str, dict[str, Any]]  # rule name -> parameters, in file order
    pool: Pool
    bans: tuple[Ban, ...]
    sources: tuple[str, ...]
    extends: str | None
    path: str
    rule_sources: dict[str, str]  # rule -> format id that set it

    def __init__(
        self,
        id: str,
        name: str,
        description: str,
        rules: dict[str, dict[str, Any]],
        pool: Pool,
        bans: tuple[Ban, ...],
        sources: tuple[str, ...],
        extends: str | None = None,
        path: str = "",
        rule_sources: dict[str, str] | None = None,
    ) -> None:
        self.id, self.name, self.description, self.rules, self.pool = id, name, description, rules, pool
        self.bans, self.sources, self.extends, self.path = bans, sources, extends, path
        self.rule_sources = {} if rule_sources is None else rule_sources

    def to_dict(self) -> dict[str, Any]:
        """The public description served by ``GET /api/v1/formats``."""
        pool = {
            "kind": self.pool.kind,
            "earliest_date": self.pool.earliest.isoformat(),
            "reprint_rule": self.pool.reprint_rule,
            "set_legal_from": self.pool.legal_delay,
        }
        if self.pool.kind == "regulation-marks":
            pool["rotations"] = [_rotation_dict(r) for r in self.pool.rotations]
            pool["mark_dates"] = [
                {"mark": m.mark, "from": m.start.isoformat(), "source": m.source} for m in self.pool.mark_dates
            ]
        if self.pool.kind == "sets":
            pool["series"] = sorted(self.pool.series)
            pool["include_sets"] = sorted(self.pool.include_sets)
            pool["exclude_sets"] = sorted(self.pool.exclude_sets)
            pool["closed_sets"] = sorted(self.pool.closed_sets)
            pool["allow"] = [
                {
                    "name": a.name,
                    "printings": [f"{s} {n}" for s, n in a.printings],
                    "since": a.since.isoformat(),
                    "source": a.source,
                    **({"unconfirmed": a.unconfirmed} if a.unconfirmed else {}),
                }
                for a in self.pool.allowed
            ]
        return {
            "id": self.id,
            "name": self.name,
            "description": self.description,
            "extends": self.extends,
            "rules": [
                {"rule": r, "parameters": p, "set_by": self.rule_sources.get(r, self.id)} for r, p in self.rules.items()
            ],
            "pool": pool,
            "bans": [
                {
                    "name": b.name,
                    "printings": [f"{s} {n}" for s, n in b.printings] or ["all printings"],
                    "since": b.since.isoformat() if b.since else None,
                    "until": b.until.isoformat() if b.until else None,
                    "source": b.source,
                    **({"unconfirmed": b.unconfirmed} if b.unconfirmed else {}),
                }
                for b in self.bans
            ],
            "sources": list(self.sources),
        }

    def description_on(self, on: dt.date) -> str:
        """The format in one sentence on the date ``on``: a rotating format says the rotation in force then
        (the marks legal and since when, or the first legal set); any other, or a date before its first
        rotation, its file's ``description``."""
        pool = self.pool
        rotation = pool.rotation_on(on) if pool.kind == "regulation-marks" else None
        if rotation is None:
            return self.description
        since = rotation.start.isoformat()
        if not rotation.min_mark:
            return f"Sets {rotation.sets[0]} and later since {since}." if rotation.sets else self.description
        floor = rotation.min_mark
        # every mark from the lowest legal one to the newest out on the date (a mark without a date is out)
        top = max([m.mark for m in pool.mark_dates if m.start <= on] + [floor])
        marks = [chr(c) for c in range(ord(floor), ord(top) + 1)]
        return f"Regulation-mark format: {', '.join(marks)} and later marks since {since}."

    def descriptions(self) -> list[tuple[str | None, str]]:
        """:meth:`description_on` over time: ``(first day, description)`` for each day it changes on (a
        rotation, a new regulation mark), in date order, the first with no day (before them all). A page
        shows the description of any date from these without asking the server."""
        pool = self.pool
        days = {r.start for r in pool.rotations} | {m.start for m in pool.mark_dates}
        out: list[tuple[str | None, str]] = [(None, self.description_on(dt.date.min))]
        for day in sorted(days) if pool.kind == "regulation-marks" else ():
            text = self.description_on(day)
            if text != out[-1][1]:
                out.append((day.isoformat(), text))
        return out

    def rule_plan(self) -> RulePlan:
        """The rules that run a function (not the parser's, :func:`~deckcheck.registry.parser_rule`),
        in file order, and what each needs of the deck (:class:`RulePlan`); built once. The engine
        calls ``fn(deck, ctx, *args)`` for each step the deck has what it needs for."""
        memos = memos_of(self)
        plan = memos.plan
        if plan is None:
            specs = [(name, REGISTRY[name], params) for name, params in self.rules.items()]
            specs = [(name, spec, params) for name, spec, params in specs if spec.fn is not None]
            steps = [(name, spec.fn, tuple(params[key] for key in spec.params)) for name, spec, params in specs]
            needs = [spec.needs_of(self) for _, spec, _ in specs]
            # attrgetter answers one value for one name, a tuple for more: one ALWAYS more makes a tuple
            # (compress stops at the shorter)
            wants = attrgetter(*needs, ALWAYS) if needs else _nothing
            # one assignment, so threads racing here store equal plans
            plan = memos.plan = RulePlan(steps, wants)  # type: ignore[arg-type]
        return plan


def _rotation_dict(r: Rotation) -> dict[str, Any]:
    """A rotation as ``GET /api/v1/formats`` describes it."""
    out: dict[str, Any] = {"from": r.start.isoformat(), "lowest_legal_mark": r.min_mark, "source": r.source}
    if not r.min_mark:
        out["sets"] = list(r.sets)
        out["promos"] = [f"{code} {number}+" for code, number in r.promos]
    if r.unconfirmed:
        out["unconfirmed"] = r.unconfirmed
    return out
