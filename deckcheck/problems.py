"""Problems found in a deck, and the catalogue of their stable codes.

A problem is data, never an exception: the parser, the resolver and every rule
yield :class:`Problem` values and the engine collects them into a report.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Iterable

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

#: rule name -> (code, default severity, one-line title). Codes are never reused.
CATALOGUE: dict[str, tuple[str, str, str]] = {
    "unparsed-line": ("P101", ERROR, "A line that is neither a header nor a card"),
    "total-mismatch": ("P102", WARNING, "The list's own total differs from the real count"),
    "input-limit": ("P103", ERROR, "The decklist is larger than the service accepts"),
    "unreadable-file": ("P104", ERROR, "A file that cannot be read as UTF-8 text (binary, another encoding)"),
    "unknown-card": ("C101", ERROR, "A card that could not be found in the card database"),
    "resolved-by-name": ("C102", INFO, "A card found by its name alone"),
    "deck-size": ("R101", ERROR, "A deck has exactly 60 cards"),
    "copy-limit": ("R102", ERROR, "At most N cards with the same name"),
    "no-basic-pokemon": ("R103", ERROR, "At least one Basic Pokémon"),
    "radiant-limit": ("R104", ERROR, "At most one Radiant Pokémon"),
    "ace-spec-limit": ("R105", ERROR, "At most one ACE SPEC card"),
    "prism-star-limit": ("R106", ERROR, "At most one Prism Star card of each name"),
    "not-in-format": ("R201", ERROR, "A card that is not legal in the format"),
    "banned": ("R202", ERROR, "A card on the format's ban list"),
    "date-out-of-range": ("R203", ERROR, "A date the format's data does not cover"),
    "evolution-gap": ("R301", WARNING, "An Evolution card whose Pokémon it evolves from is missing"),
    "single-type": ("G101", ERROR, "GLC: all Pokémon share one type"),
    "rule-box": ("G102", ERROR, "GLC: no Rule Box cards"),
    "exclusive-group": ("G103", ERROR, "GLC: one card of each exclusive group"),
}


@dataclass(frozen=True)
class Problem:
    """One thing wrong (or worth saying) about a deck.

    :param rule: stable kebab-case rule name from :data:`CATALOGUE`.
    :param message: one plain sentence that names the cards, counts and limit.
    :param lines: 1-based line numbers in the pasted text.
    :param cards: card ids (printings) the problem is about.
    :param hint: an optional second sentence explaining a likely mistake.
    """

    rule: str
    message: str
    lines: tuple[int, ...] = ()
    cards: tuple[str, ...] = ()
    hint: str | None = None
    severity: str = ""
    code: str = ""

    def __post_init__(self) -> None:
        if self.rule not in CATALOGUE:
            raise ValueError(f"unknown rule name {self.rule!r}")
        code, severity, _ = CATALOGUE[self.rule]
        # the catalogue supplies code and default severity so rules only write the sentence
        if not self.code:
            object.__setattr__(self, "code", code)
        if not self.severity:
            object.__setattr__(self, "severity", severity)
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")
        object.__setattr__(self, "lines", tuple(sorted(set(self.lines))))
        object.__setattr__(self, "cards", tuple(self.cards))

    @property
    def line(self) -> int | None:
        """The first line the problem points at, if any."""
        return self.lines[0] if self.lines else None

    def with_severity(self, severity: str) -> "Problem":
        return replace(self, severity=severity)

    def to_dict(self) -> dict:
        return {
            "rule": self.rule,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "lines": list(self.lines),
            "cards": list(self.cards),
            "hint": self.hint,
        }


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Errors first, then warnings, then info; within a severity by first line."""
    rank = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(problems, key=lambda p: (rank[p.severity], p.line or 0, p.code))


def line_list(lines: Iterable[int]) -> str:
    """``(line 3)`` or ``(lines 3, 7)`` for a message; empty when there are none."""
    lines = sorted(set(lines))
    if not lines:
        return ""
    if len(lines) == 1:
        return f" (line {lines[0]})"
    return " (lines " + ", ".join(str(n) for n in lines) + ")"


@dataclass
class Counts:
    pokemon: int = 0
    trainer: int = 0
    energy: int = 0
    unknown: int = 0

    @property
    def total(self) -> int:
        return self.pokemon + self.trainer + self.energy + self.unknown

    def to_dict(self) -> dict:
        return {
            "pokemon": self.pokemon,
            "trainer": self.trainer,
            "energy": self.energy,
            "unknown": self.unknown,
            "total": self.total,
        }


@dataclass
class Report:
    """The verdict on one deck in one format on one date."""

    format: str
    format_name: str
    as_of: str
    problems: list[Problem]
    lines: list  # list[engine.ResolvedLine]
    counts: Counts
    database: dict
    basic_pokemon: int = 0
    extra: dict = field(default_factory=dict)

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
        verdict = "Valid" if self.valid else "Not valid"
        parts = [f"{verdict} for {self.format_name} on {self.as_of}: {self.counts.total} cards"]
        e, w = len(self.errors), len(self.warnings)
        if e:
            parts.append(f"{e} error{'s' if e != 1 else ''}")
        if w:
            parts.append(f"{w} warning{'s' if w != 1 else ''}")
        return ", ".join(parts) + "."

    def to_dict(self) -> dict:
        return {
            "valid": self.valid,
            "format": self.format,
            "format_name": self.format_name,
            "as_of": self.as_of,
            "summary": self.summary,
            "problems": [p.to_dict() for p in self.problems],
            "cards": [line.to_dict() for line in self.lines],
            "counts": self.counts.to_dict(),
            "basic_pokemon": self.basic_pokemon,
            "database": dict(self.database),
        }
