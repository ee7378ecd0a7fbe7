"""The deck registration sheet: a valid deck laid out as Play! Pokémon's sheet for in-person events.

The official sheet has the player's name, Play! Pokémon player ID, date of birth and age division at
the top, then the Pokémon, the Trainer cards and the Energy, each line with its quantity, name, set,
collector number and regulation mark. :func:`build_sheet` makes those values from a report (lines of
one printing merged, as the PTCGL export does); :func:`render_sheet` writes the printable HTML page
(``templates/sheet.html`` with ``templates/sheet.css``: one page on A4 and on Letter), which the web
page serves at ``/sheet`` and ``deckcheck sheet`` writes to a file, or prints to PDF.

Player fields left empty are printed as blanks to fill in by hand.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..problems import Report
from .export import SECTIONS, export_name

#: the age divisions of Play! Pokémon events, as the sheet prints them
DIVISIONS = (("junior", "Junior"), ("senior", "Senior"), ("masters", "Masters"))
#: the longest player field kept (a name, an ID, a date): the sheet has room for no more
MAX_FIELD = 60
TEMPLATES = Path(__file__).with_name("templates")
#: the lines a section's caption and column heads take, counted like card rows
SECTION_ROWS = 2
#: the paper's height the sheet may fill: Letter's 259.4 mm inside 10 mm margins (A4 has more), less 4 mm for a
#: printer's font that sets the head and the boxes a little taller
PAGE_MM = 255
#: the printed sheet but its card lines (head, player boxes, foot, the sections' margins), in Chromium
FIXED_MM = 60.5
#: (name, most characters of a name on one line, a line's height in mm), from the largest rows. Each row of
#: templates/sheet.css is one line box of a fixed height (--line, and its rule), so a column is its lines times
#: that height, and a longer name takes two lines: every name of the database up to 25, 34 and 43 characters
#: fits one line (measured in Chromium with Liberation Sans, Arial's widths), counted here with a tenth to
#: spare for wider fonts. The smallest holds the most a valid deck makes: 59 Trainer lines, 7 of them over
#: 39 characters, and their caption: 68 lines of the 69 that fit.
DENSITIES = (("", 23, 4.66), ("dense", 31, 3.77), ("denser", 39, 2.81))
#: where the sections may go (indices; left column, right column), in order of preference: Pokémon left,
#: Trainer right, Energy under the shorter of the two, or beside both (a list of many Energy lines)
ARRANGEMENTS = (((0, 2), (1,)), ((0,), (1, 2)), ((0, 1), (2,)))


class SheetError(ValueError):
    """A deck that is not valid has no registration sheet: the message says why."""


class FieldError(SheetError):
    """A player field the sheet cannot print as given (an age division it does not have): the message says
    what it takes."""


class SheetRow:
    """One line of a section: quantity, name, set code, collector number and regulation mark."""

    __slots__ = ("count", "name", "set_code", "number", "mark")

    def __init__(self, count: int, name: str, set_code: str, number: str, mark: str) -> None:
        self.count = count
        self.name = name
        self.set_code = set_code
        self.number = number
        self.mark = mark


class Player:
    """The fields at the top of the sheet; empty ones are left blank to fill in by hand. A division that is
    not one of :data:`DIVISIONS` raises :class:`FieldError` (never dropped for a blank)."""

    __slots__ = ("name", "player_id", "birth_date", "division")

    def __init__(self, name: str = "", player_id: str = "", birth_date: str = "", division: str = "") -> None:
        self.name = _one_field(name)
        self.player_id = _one_field(player_id)
        self.birth_date = _one_field(birth_date)
        chosen = (division or "").strip().lower()
        if chosen and chosen not in dict(DIVISIONS):
            keys = [key for key, _ in DIVISIONS]
            raise FieldError(
                f"“{_one_field(division)}” is not an age division: give {', '.join(keys[:-1])} or {keys[-1]}, "
                "or none to tick it by hand."
            )
        #: one of DIVISIONS' keys, or empty
        self.division = chosen


def _one_field(value: str) -> str:
    """A player field as the sheet prints it: one line, printable characters, at most :data:`MAX_FIELD`."""
    line = " ".join(str(value or "").split())  # one line, no control characters
    return "".join(ch for ch in line if ch.isprintable())[:MAX_FIELD]


class Sheet:
    """The sheet's values: the player, the format and date, and its sections (title, rows, cards)."""

    __slots__ = ("player", "format_name", "as_of", "sections")

    def __init__(
        self,
        player: Player,
        format_name: str,
        as_of: str,
        sections: list[tuple[str, list[SheetRow], int]] | None = None,
    ) -> None:
        self.player = player
        self.format_name = format_name
        self.as_of = as_of
        self.sections: list[tuple[str, list[SheetRow], int]] = [] if sections is None else sections

    @property
    def total(self) -> int:
        return sum(cards for _, _, cards in self.sections)

    @property
    def layout(self) -> tuple[str, tuple[tuple[int, ...], tuple[int, ...]], int]:
        """The density (``""``, ``dense``, ``denser``: smaller rows), the sections in each column and the lines
        of the taller one: the largest rows whose taller column holds its lines (:data:`DENSITIES`), with the
        sections arranged to make that column as short as it can be."""
        for name, width, line_mm in DENSITIES:
            most = int((PAGE_MM - FIXED_MM) // line_mm)
            lines = [max(1, sum(_lines(r.name, width) for r in rows)) + SECTION_ROWS for _, rows, _ in self.sections]
            tallest, columns = min(
                ((max(sum(lines[i] for i in c) for c in arrangement), arrangement) for arrangement in ARRANGEMENTS),
                key=lambda pair: pair[0],
            )
            if tallest <= most or name == DENSITIES[-1][0]:
                return name, columns, tallest
        raise AssertionError("unreachable: the last density is always taken")  # pragma: no cover

    @property
    def columns(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The sections (indices) in the left and the right column (:attr:`layout`)."""
        return self.layout[1]

    @property
    def density(self) -> str:
        """``dense`` or ``denser`` (smaller rows) when the taller column has more lines than fit one page
        at the regular size, else empty (:attr:`layout`)."""
        return self.layout[0]


def _lines(name: str, width: int) -> int:
    """The lines a name takes in a name cell that holds ``width`` characters a line."""
    return max(1, -(-len(name) // width))


def build_sheet(report: Report, player: Player | None = None) -> Sheet:
    """The sheet of a valid deck. Raises :class:`SheetError` for a deck that is not valid (an event
    takes only a legal deck) or has a card that did not resolve."""
    if not report.valid:
        raise SheetError(f"{report.summary} A registration sheet is for a valid deck: fix the problems first.")
    groups: dict[str, dict[tuple[str, str, str], list[Any]]] = {s: {} for s, _ in SECTIONS}
    for ln in report.lines:
        card = ln.card
        if card is None:  # pragma: no cover - an unknown card is an error: the deck is not valid
            raise SheetError(f"Line {ln.line}: the card is unknown, so the sheet cannot name it.")
        # the name as printed ("Fire Energy"), not the export's "Basic {R} Energy"; no trainer subtitle
        name = card.name if card.is_basic_energy else export_name(card)
        entry = groups[card.supertype].setdefault((name, card.set_code, card.number), [0, card.mark or ""])
        entry[0] += ln.count
    sheet = Sheet(player or Player(), report.format_name, report.as_of)
    for section, title in SECTIONS:
        rows = [SheetRow(n, name, code, number, mark) for (name, code, number), (n, mark) in groups[section].items()]
        sheet.sections.append((title, rows, sum(r.count for r in rows)))
    return sheet


def sheet_css() -> str:
    """The sheet's style sheet (screen and print): one file, served at ``/sheet.css`` by the web page and
    written inside the page by :func:`render_sheet` for a file."""
    css = (TEMPLATES / "sheet.css").read_text(encoding="utf-8")
    if "</" in css:  # pragma: no cover - a broken install: inside <style> it would end the element
        raise RuntimeError(f"{TEMPLATES / 'sheet.css'} holds '</', which would end its <style> element")
    return css


def render_sheet(sheet: Sheet, *, stylesheet: str | None = None, screen: dict[str, Any] | None = None) -> str:
    """The sheet as a complete HTML page. ``stylesheet``: the URL of :func:`sheet_css` (a page served
    under a Content-Security-Policy); without one the style sheet is written into the page (a file).
    ``screen``: what the web page adds on screen only (a form to fill the player fields, a way back)."""
    from jinja2 import Environment, FileSystemLoader, select_autoescape
    from markupsafe import Markup

    env = Environment(
        loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True), keep_trailing_newline=True
    )
    return env.get_template("sheet.html").render(
        sheet=sheet,
        divisions=DIVISIONS,
        stylesheet=stylesheet,
        # the style sheet is the project's own text, written as it is: escaped, its quoted font names
        # ("Helvetica Neue") would break the rule that sets the sheet's font and line height
        css=None if stylesheet else Markup(sheet_css()),
        screen=screen,
    )
