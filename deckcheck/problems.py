"""Problems found in a deck, and the report that collects them.

A problem is data, never an exception: the parser, the resolver and every rule
yield :class:`Problem` values and the engine collects them into a report.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

# the severities and the catalogue are defined with the rule registry (re-exported here)
from .registry import CATALOGUE as CATALOGUE
from .registry import ERROR as ERROR
from .registry import INFO as INFO
from .registry import SEVERITIES as SEVERITIES
from .registry import WARNING as WARNING
from .registry import Finding, RuleSpec, load_builtin_rules
from .value import Value
from .wording import plural


class Problem(Value):
    """One thing wrong (or worth saying) about a deck: a value (equal and hashed by its fields; not
    changed once made).

    :param rule: stable kebab-case rule name from :data:`~deckcheck.registry.CATALOGUE`, which
        supplies the code and the default severity.
    :param message: one plain sentence that names the cards, counts and limit.
    :param lines: 1-based line numbers in the pasted text.
    :param cards: card ids (printings) the problem is about.
    :param hint: an optional second sentence explaining a likely mistake.

    A plain class with slots: a check makes one per problem, and a dataclass's generated
    ``__init__`` (frozen: one ``object.__setattr__`` per field) costs more to make and, generated at
    import, to load.
    """

    __slots__ = __match_args__ = FIELDS = ("rule", "message", "lines", "cards", "hint", "severity", "code")

    rule: str
    message: str
    lines: tuple[int, ...]
    cards: tuple[str, ...]
    hint: str | None
    severity: str
    code: str

    def __init__(
        self,
        rule: str,
        message: str,
        lines: Iterable[int] = (),
        cards: Iterable[str] = (),
        hint: str | None = None,
        severity: str = "",
        code: str = "",
    ) -> None:
        spec = CATALOGUE.get(rule)
        if spec is None:
            load_builtin_rules()  # a process that never imported the rules (the engine imports them)
            spec = CATALOGUE.get(rule)
            if spec is None:
                raise ValueError(f"unknown rule name {rule!r}")
        # the catalogue supplies code and default severity so rules only write the sentence
        if not severity:
            severity = spec.severity
        elif severity not in SEVERITIES:
            raise ValueError(f"unknown severity {severity!r}")
        numbers = lines if type(lines) is tuple and len(lines) < 2 else tuple(sorted(set(lines)))
        self.rule, self.message, self.lines, self.cards = rule, message, numbers, tuple(cards)
        self.hint, self.severity, self.code = hint, severity, code or spec.code

    @classmethod
    def from_finding(cls, spec: RuleSpec, finding: Finding) -> Problem:
        """The problem a registered rule's finding makes (what the engine stamps): the same value as
        ``Problem(spec.name, finding.message, ...)``, made without the catalogue look-up (the engine
        has the spec)."""
        severity = finding.severity or spec.severity
        if severity not in SEVERITIES:
            raise ValueError(f"unknown severity {severity!r}")
        lines, cards = finding.lines, finding.cards
        if len(lines) > 1 or type(lines) is not tuple:
            lines = tuple(sorted(set(lines)))
        if type(cards) is not tuple:
            cards = tuple(cards)
        problem = _new(cls)
        problem.rule, problem.message, problem.lines, problem.cards = spec.name, finding.message, lines, cards
        problem.hint, problem.severity, problem.code = finding.hint, severity, spec.code
        return problem

    @property
    def line(self) -> int | None:
        """The first line the problem points at, if any."""
        return self.lines[0] if self.lines else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "lines": list(self.lines),
            "cards": list(self.cards),
            "hint": self.hint,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Problem:
        """Inverse of :meth:`to_dict` (e.g. a report read back from the JSON API).

        A rule this copy does not know (a newer server) is kept as sent instead of failing.
        """
        values = {
            "rule": data["rule"],
            "message": data["message"],
            "lines": tuple(data.get("lines") or ()),
            "cards": tuple(data.get("cards") or ()),
            "hint": data.get("hint"),
            "severity": data.get("severity") or "",
            "code": data.get("code") or "",
        }
        if values["rule"] in CATALOGUE and (not values["severity"] or values["severity"] in SEVERITIES):
            return cls(**values)
        problem = _new(cls)
        for key, value in values.items():
            setattr(problem, key, value)
        return problem


class ProblemGroup(Value):
    """Problems of a report with one cause and one fix (:mod:`deckcheck.engine.groups`), for a person to
    read as one: each problem stays in the report's ``problems`` for tools. A value, like :class:`Problem`.

    :param kind: what they share (``rotated-out``: their regulation mark left the format on ``date``).
    :param rule: the rule of every problem in the group.
    :param message: one sentence for the whole group.
    :param date: the day they share (ISO), and ``before``: the day is the earliest the format knows,
        and they left before it.
    :param marks: the regulation marks of the cards.
    :param problems: the indices of the group's problems in the report's ``problems``.
    :param lines: their lines (one fix removes them all); ``cards``, the card id of each line.
    :param replacements: per line ``{"line", "card", "legal"}``: the recommended legal printing of the
        same name (its id), or None.
    """

    __slots__ = __match_args__ = FIELDS = (
        "kind",
        "rule",
        "message",
        "date",
        "before",
        "marks",
        "problems",
        "lines",
        "cards",
        "replacements",
    )

    def __init__(
        self,
        kind: str,
        rule: str,
        message: str,
        date: str | None,
        before: bool,
        marks: tuple[str, ...],
        problems: tuple[int, ...],
        lines: tuple[int, ...],
        cards: tuple[str, ...],
        replacements: tuple[dict[str, Any], ...],
    ) -> None:
        self.kind, self.rule, self.message, self.date, self.before = kind, rule, message, date, before
        self.marks, self.problems, self.lines, self.cards = marks, problems, lines, cards
        self.replacements = replacements

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rule": self.rule,
            "message": self.message,
            "date": self.date,
            "before": self.before,
            "marks": list(self.marks),
            "problems": list(self.problems),
            "lines": list(self.lines),
            "cards": list(self.cards),
            "replacements": [dict(r) for r in self.replacements],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ProblemGroup:
        return cls(
            kind=data["kind"],
            rule=data["rule"],
            message=data["message"],
            date=data.get("date"),
            before=bool(data.get("before")),
            marks=tuple(data.get("marks") or ()),
            problems=tuple(data.get("problems") or ()),
            lines=tuple(data.get("lines") or ()),
            cards=tuple(data.get("cards") or ()),
            replacements=tuple(dict(r) for r in data.get("replacements") or ()),
        )


_new = object.__new__


_RANK = {s: i for i, s in enumerate(SEVERITIES)}


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Errors first, then warnings, then info; within a severity by first line."""
    return sorted(problems, key=lambda p: (_RANK[p.severity], p.line or 0, p.code))


def line_list(lines: Iterable[int]) -> str:
    """``(line 3)`` or ``(lines 3, 7)`` for a message; empty when there are none."""
    lines = sorted(set(lines))
    if not lines:
        return ""
    if len(lines) == 1:
        return f" (line {lines[0]})"
    return " (lines " + ", ".join(str(n) for n in lines) + ")"


class Counts(Value):
    """Cards of a deck by kind (copies, not lines)."""

    __slots__ = __match_args__ = FIELDS = ("pokemon", "trainer", "energy", "unknown")

    def __init__(self, pokemon: int = 0, trainer: int = 0, energy: int = 0, unknown: int = 0) -> None:
        self.pokemon, self.trainer, self.energy, self.unknown = pokemon, trainer, energy, unknown

    __hash__ = None  # type: ignore[assignment]  # equal by value, and not frozen

    @property
    def total(self) -> int:
        return self.pokemon + self.trainer + self.energy + self.unknown

    def to_dict(self) -> dict[str, Any]:
        return {
            "pokemon": self.pokemon,
            "trainer": self.trainer,
            "energy": self.energy,
            "unknown": self.unknown,
            "total": self.total,
        }


class ReportedLine(Value):
    """A card line read back from a report's JSON (:meth:`Report.from_dict`). A value, like :class:`Problem`.

    The fields of ``engine.ResolvedLine.to_dict()`` under ResolvedLine's attribute
    names, except that ``card`` is the printing's dict and ``legal_via`` the id of
    the legal reprint (or None), as the JSON gives them; ``language``, the language the name was
    recognised in (another than English), or None.
    """

    __slots__ = __match_args__ = FIELDS = (
        "line",
        "count",
        "raw",
        "name",
        "set_code",
        "number",
        "method",
        "suggestions",
        "legal",
        "legal_via",
        "banned",
        "card",
        "language",
    )

    def __init__(
        self,
        line: int,
        count: int,
        raw: str,
        name: str,
        set_code: str | None,
        number: str | None,
        method: str,
        suggestions: tuple[str, ...],
        legal: bool | None,
        legal_via: str | None,
        banned: bool,
        card: dict[str, Any] | None,
        language: str | None = None,
    ) -> None:
        self.line, self.count, self.raw, self.name, self.set_code = line, count, raw, name, set_code
        self.number, self.method, self.suggestions, self.legal = number, method, suggestions, legal
        self.legal_via, self.banned, self.card, self.language = legal_via, banned, card, language

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ReportedLine:
        return cls(
            data["line"],
            data["count"],
            data["text"],
            data["name"],
            data.get("set"),
            data.get("number"),
            data["resolution"],
            tuple(data.get("suggestions") or ()),
            data.get("legal"),
            data.get("legal_via"),
            bool(data.get("banned")),
            data.get("card"),
            data.get("language"),
        )

    def to_dict(self) -> dict[str, Any]:
        """As ``ResolvedLine.to_dict``; the card read back is already a dict, copied."""
        return {
            "line": self.line,
            "count": self.count,
            "text": self.raw,
            "name": self.name,
            "name_as_written": self.name,
            "language": self.language,
            "set": self.set_code,
            "number": self.number,
            "resolution": self.method,
            "suggestions": list(self.suggestions),
            "legal": self.legal,
            "legal_via": self.legal_via,
            "banned": self.banned,
            "card": dict(self.card) if self.card is not None else None,
        }


#: the keys of :meth:`Report.to_dict`; :meth:`Report.from_dict` keeps any other key in ``extra``
REPORT_KEYS = (
    "valid",
    "format",
    "format_name",
    "as_of",
    "summary",
    "problems",
    "groups",
    "cards",
    "counts",
    "basic_pokemon",
    "database",
)
#: keys of ``extra`` that :meth:`Report.to_dict` writes when they are there (``forecast``: a check
#: asked for the rotation forecast)
OPTIONAL_KEYS = ("forecast",)


class Report(Value):
    """The verdict on one deck in one format on one date.

    ``lines``: engine.ResolvedLine, or :class:`ReportedLine` read back; ``extra``: what a check adds
    beside the fields (``forecast``); ``groups``: problems gathered by cause
    (:mod:`deckcheck.engine.groups`), each also in ``problems``.
    """

    __slots__ = __match_args__ = FIELDS = (
        "format",
        "format_name",
        "as_of",
        "problems",
        "lines",
        "counts",
        "database",
        "basic_pokemon",
        "extra",
        "groups",
    )

    def __init__(
        self,
        format: str,
        format_name: str,
        as_of: str,
        problems: list[Problem],
        lines: list[Any],
        counts: Counts,
        database: dict[str, Any],
        basic_pokemon: int = 0,
        extra: dict[str, Any] | None = None,
        groups: list[ProblemGroup] | None = None,
    ) -> None:
        self.format, self.format_name, self.as_of, self.problems = format, format_name, as_of, problems
        self.lines, self.counts, self.database, self.basic_pokemon = lines, counts, database, basic_pokemon
        self.extra = {} if extra is None else extra
        self.groups = [] if groups is None else groups

    __hash__ = None  # type: ignore[assignment]  # equal by value, and not frozen

    @property
    def valid(self) -> bool:
        return not any(p.severity == ERROR for p in self.problems)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == ERROR]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if p.severity == WARNING]

    @property
    def summary(self) -> str:
        """One line for a chat bot or a CI log."""
        return self._summary(*self._tally())

    def _tally(self) -> tuple[int, int]:
        """(errors, warnings), in one pass over the problems."""
        if not self.problems:
            return 0, 0
        severities = [p.severity for p in self.problems]
        return severities.count(ERROR), severities.count(WARNING)

    def _summary(self, e: int, w: int) -> str:
        verdict = "Not valid" if e else "Valid"
        head = f"{verdict} for {self.format_name} on {self.as_of}: {plural(self.counts.total, 'card')}"
        if not (e or w):
            return head + "."
        parts = [head]
        if e:
            parts.append(plural(e, "error"))
        if w:
            parts.append(plural(w, "warning"))
        return ", ".join(parts) + "."

    def to_dict(
        self, line_view: Callable[[Any], Any] | None = None, cards_view: Callable[[list[Any]], Any] | None = None
    ) -> dict[str, Any]:
        """The report as JSON-ready values (ReportSchema's shape). ``line_view(line)`` writes each
        card line, by default ``line.to_dict()``; or ``cards_view(lines)`` the whole list of them
        (the API passes :func:`deckcheck.render.json.cards_json`). No list is made by a comprehension when there is
        nothing in it (a valid deck has no problems and no groups: on CPython 3.11 each would
        cost a call)."""
        errors, warnings = self._tally()
        if cards_view is not None:
            cards: Any = cards_view(self.lines)
        else:
            cards = [line.to_dict() for line in self.lines] if line_view is None else [*map(line_view, self.lines)]
        problems, groups, extra = self.problems, self.groups, self.extra
        out = {
            "valid": not errors,
            "format": self.format,
            "format_name": self.format_name,
            "as_of": self.as_of,
            "summary": self._summary(errors, warnings),
            "problems": [p.to_dict() for p in problems] if problems else [],
            "groups": [g.to_dict() for g in groups] if groups else [],
            "cards": cards,
            "counts": self.counts.to_dict(),
            "basic_pokemon": self.basic_pokemon,
            "database": dict(self.database),
        }
        if extra:
            for key in OPTIONAL_KEYS:
                if key in extra:
                    out[key] = extra[key]
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """A report rebuilt from :meth:`to_dict`'s JSON (what ``POST /api/v1/validate`` answers).

        ``to_dict()`` of the result gives the same JSON back; card lines become
        :class:`ReportedLine` values, and keys ``to_dict`` does not write (such as
        ``chat``) are kept in :attr:`extra`.
        """
        counts = data["counts"]
        return cls(
            format=data["format"],
            format_name=data["format_name"],
            as_of=data["as_of"],
            problems=[Problem.from_dict(p) for p in data["problems"]],
            lines=[ReportedLine.from_dict(c) for c in data["cards"]],
            counts=Counts(counts["pokemon"], counts["trainer"], counts["energy"], counts["unknown"]),
            database=dict(data["database"]),
            basic_pokemon=data["basic_pokemon"],
            extra={k: v for k, v in data.items() if k not in REPORT_KEYS},
            groups=[ProblemGroup.from_dict(g) for g in data.get("groups") or ()],
        )
