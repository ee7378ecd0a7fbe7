"""The result as the web page shows it: lines and cards with their marks, fixes a click
applies, card images, header checks.

Part of the web edge (``web.py`` renders it, with Flask; this module needs none): it reads a
report with the database and format that made it and never changes either.

A **fix** is a list of edits to the pasted text, each ``(line number, new line)`` with an
empty new line meaning "remove the line". Every fix is offered as a link,
``/?d=<the list>&format=..&as_of=..&fix=12:4 Nest Ball SVI 181``: the server applies it and
redirects to the share link of the fixed list (no JavaScript needed), and the page's script
applies the same edits to the text box and checks again.
"""

from __future__ import annotations

import datetime as dt
import re
from urllib.parse import urlencode

from ..cards import Card, CardDB, get_db
from ..decklist.parse import looks_like_json, parse
from ..formats import Format
from ..patterns import Pattern
from ..problems import ERROR, INFO, WARNING
from ..render import export_name
from ..rules import label
from ..rules.recommend import legal_printings
from ..wording import plural

#: most edits one fix link may carry (a copy-limit fix edits one line per printing of the name; removing
#: the cards that rotated out edits one line per card: a deck has at most 60 cards)
MAX_EDITS = 60
#: most card images shown beside one problem
MAX_PROBLEM_CARDS = 3
#: most printings offered for one unknown card
MAX_SUGGESTIONS = 3
#: the size TCGdex's ``low`` card images are served at (width, height in CSS pixels)
IMAGE_SIZE = (245, 337)
#: what is appended to a card's image base URL: TCGdex's small WebP
IMAGE_SUFFIX = "/low.webp"

_LINE_BREAK = Pattern(r"\r\n|\r|\n")
_EDIT = Pattern(r"([1-9][0-9]{0,5}):(.*)", re.DOTALL)

BROKEN_FIX = (
    "This fix link is broken, so it was not applied. Open the list's share link again, or edit the list in the form."
)


#: the deck grid's groups, in order; a card that did not resolve is in the last
GROUPS = ("Pokémon", "Trainer", "Energy", "Not recognised")


class FixError(ValueError):
    """A ``fix`` parameter that is not ``<line>:<text>`` for a line of the list."""


class Fix:
    """One click's worth of change: ``label`` says what it does. The page shows a problem's first fix and
    its ``alternative`` ones (another way to read the line); the rest (other printings) behind them.
    Read-only by convention."""

    __slots__ = ("label", "edits", "alternative")

    label: str
    edits: tuple[tuple[int, str], ...]
    alternative: bool

    def __init__(self, label: str, edits: tuple[tuple[int, str], ...], alternative: bool = False) -> None:
        self.label, self.edits, self.alternative = label, edits, alternative

    @property
    def params(self) -> list[str]:
        return [f"{line}:{text}" for line, text in self.edits]


# -- applying fixes -------------------------------------------------------------


def read_edits(values: list[str]) -> list[tuple[int, str]]:
    """``fix`` query values -> edits; a :class:`FixError` for anything malformed."""
    if not values or len(values) > MAX_EDITS:
        raise FixError(BROKEN_FIX)
    edits = []
    for value in values:
        m = _EDIT.fullmatch(value)
        if m is None or _LINE_BREAK.search(m.group(2)):
            raise FixError(BROKEN_FIX)
        edits.append((int(m.group(1)), m.group(2)))
    return edits


def apply_edits(text: str, edits: list[tuple[int, str]]) -> str:
    """The text with each edited line replaced (or removed, for an empty new line).

    Line numbers are those of ``text``, as the page showed them; line ends become ``\\n``.
    """
    lines = _LINE_BREAK.split(text)
    trailing = lines[-1] == "" and len(lines) > 1
    if trailing:
        lines.pop()
    out: list[str | None] = list(lines)
    for n, new in edits:
        if not 1 <= n <= len(lines):
            raise FixError(BROKEN_FIX)
        out[n - 1] = new if new.strip() else None
    return "\n".join(x for x in out if x is not None) + ("\n" if trailing else "")


# -- finding fixes ----------------------------------------------------------------


def card_line(count: int, card: Card) -> str:
    """A card line as the PTCGL export writes it: ``4 Nest Ball SVI 181``."""
    return f"{count} {export_name(card)} {card.set_code} {card.number}"


def _choices(name: str, fmt: Format, db: CardDB, on: dt.date | None) -> list[Card]:
    """The printings of ``name`` a fix offers, the recommended one first (:func:`legal_printings`);
    when none is legal, the newest printing (the player sees why it is not legal after the swap)."""
    found = legal_printings(name, fmt, db, on)
    if found:
        return found
    printings = db.by_name(name)
    return [printings[0]] if printings else []


def fixes_for(report, fmt: Format, db: CardDB) -> dict[int, list[Fix]]:
    """Problem index (in ``report.problems``) -> the fixes offered for it, the recommended one first
    (the page shows the others behind it):

    * ``unknown-card``: the first suggested name as its recommended printing (:mod:`deckcheck.rules.recommend`:
      the newest regular art legal on the date), then its other printings, then the other names;
    * ``not-in-format``: the recommended legal printing of that name, then the others;
    * ``name-mismatch``: write the name of the printing the set code and number name, or keep the
      name and take that card's recommended printing;
    * ``copy-limit``: set the count to the limit (the last lines give up copies first).
    """
    unchecked = any(p.rule == "date-out-of-range" for p in report.problems)
    on = None if unchecked else dt.date.fromisoformat(report.as_of)
    by_line = {ln.line: ln for ln in report.lines}
    out: dict[int, list[Fix]] = {}
    for i, problem in enumerate(report.problems):
        fixes: list[Fix] = []
        ln = by_line.get(problem.lines[0]) if len(problem.lines) == 1 else None
        if problem.rule == "unknown-card" and ln is not None:
            for k, name in enumerate(ln.suggestions[:MAX_SUGGESTIONS]):
                # the other names only with a printing legal on the date
                cards = _choices(name, fmt, db, on) if k == 0 else legal_printings(name, fmt, db, on, limit=1)
                for card in cards:
                    fixes.append(Fix(f"Use {label(card)}", ((ln.line, card_line(ln.count, card)),)))
        elif problem.rule == "not-in-format" and ln is not None and ln.card is not None and on is not None:
            for n, other in enumerate(legal_printings(ln.card.name, fmt, db, on)):
                words = f"Use the legal printing, {label(other)}" if n == 0 else f"Use {label(other)}"
                fixes.append(Fix(words, ((ln.line, card_line(ln.count, other)),)))
        elif problem.rule == "name-mismatch" and ln is not None and ln.card is not None:
            card = ln.card
            fixes.append(
                Fix(
                    f"Use the name of {card.set_code} {card.number}, {export_name(card)}",
                    ((ln.line, card_line(ln.count, card)),),
                )
            )
            # the card named as written, when one is legal on the date
            for other in legal_printings(ln.name, fmt, db, on, limit=1):
                if other.key != card.key:
                    fixes.append(
                        Fix(
                            f"Use the card named {ln.name}, {label(other)}",
                            ((ln.line, card_line(ln.count, other)),),
                            alternative=True,
                        )
                    )
        elif problem.rule == "copy-limit":
            limit = (fmt.rules.get("copy-limit") or {}).get("limit")
            lines = [by_line[n] for n in problem.lines if n in by_line and by_line[n].card is not None]
            if isinstance(limit, int) and lines and len(lines) <= MAX_EDITS:
                fixes.append(Fix(f"Set to the limit, {limit}", _reduce(lines, limit)))
        if fixes:
            out[i] = fixes
    return out


def _reduce(lines, limit: int) -> tuple[tuple[int, str], ...]:
    """Edits that leave ``limit`` copies over ``lines``, taking copies off the last lines first."""
    excess = sum(ln.count for ln in lines) - limit
    edits = []
    for ln in reversed(lines):
        if excess <= 0:
            break
        take = min(ln.count, excess)
        excess -= take
        edits.append((ln.line, card_line(ln.count - take, ln.card) if ln.count > take else ""))
    return tuple(sorted(edits))


# -- headers ------------------------------------------------------------------------

_SECTION_NAMES = {"pokemon": "Pokémon", "trainer": "Trainer", "energy": "Energy"}


def header_notes(text: str) -> dict[int, str]:
    """Line number -> a note, for each section header whose count matches neither the cards
    nor the lines under it (PTCGL writes the number of lines, Limitless the number of cards)."""
    parsed = parse(text)
    if parsed.source != "text" or not parsed.headers:
        return {}
    starts = [h.line for h in parsed.headers] + [float("inf")]
    notes = {}
    for header, end in zip(parsed.headers, starts[1:], strict=False):
        if header.count is None:
            continue
        block = [c for c in parsed.cards if header.line < c.line < end]
        copies, lines = sum(c.count for c in block), len(block)
        if header.count in (copies, lines):
            continue
        name = _SECTION_NAMES.get(header.section, header.label)
        notes[header.line] = (
            f"This header says {header.count}, but the {name} section under it has "
            f"{plural(copies, 'card')} on {plural(lines, 'line')}."
        )
    return notes


# -- images ---------------------------------------------------------------------------


def image_url(card: Card | None, db: CardDB, host: str | None) -> str | None:
    """The card's small image at ``host`` (TCGdex's asset server), or None when images are off or
    the database has no image for it."""
    if card is None or not host:
        return None
    cset = db.sets.get(card.set_id)
    local = card.image_id
    if cset is None or not cset.image or local is None:
        return None
    return f"{host}/{cset.image}/{local}{IMAGE_SUFFIX}"


# -- the result's lines, as the template shows them -------------------------------------


def is_json_deck(text: str) -> bool:
    """Does the parser read ``text`` as a JSON deck (whose "lines" are its entries), on its own
    or inside a code fence?"""
    text = text.removeprefix("\ufeff")
    if looks_like_json(text):
        return True
    return "```" in text and parse(text).source == "json"


class FixView:
    """A :class:`Fix` as the page shows it: a link, and the edits for the script."""

    __slots__ = ("label", "href", "edits", "alternative")

    label: str
    href: str | None  # reloads the page with the fix applied; None when the list is too long for a link
    edits: str  # the same edits as a query string (fix=12%3A4+Nest+Ball+SVI+181), for the script
    alternative: bool  # shown beside the first fix, not behind it (Fix.alternative)

    def __init__(self, label: str, href: str | None, edits: str, alternative: bool = False) -> None:
        self.label, self.href, self.edits, self.alternative = label, href, edits, alternative


def remove_fix(group) -> Fix:
    """The one fix of a group (``report.groups``): remove every line of it."""
    what = f"all {len(group.lines):,} lines" if len(group.lines) > 1 else "the line"
    return Fix(f"Remove {what} that rotated out", tuple((line, "") for line in group.lines))


class GroupView:
    """A group of problems (``report.groups``) as the page shows it: one block, one fix, its members."""

    __slots__ = ("id", "severity", "message", "fix", "members", "rule", "code", "more")

    #: what the page's template asks to tell a group from a problem
    is_group = True

    id: str
    severity: str
    message: str
    fix: FixView | None
    members: list[ProblemView]
    rule: str
    code: str
    more: int  # members not shown (the page shows at most as many as problems of a severity)

    def __init__(
        self,
        id: str,
        severity: str,
        message: str,
        fix: FixView | None,
        members: list[ProblemView],
        rule: str = "",
        code: str = "",
        more: int = 0,
    ) -> None:
        self.id, self.severity, self.message, self.fix, self.members = id, severity, message, fix, members
        self.rule, self.code, self.more = rule, code, more


class ProblemView:
    """A problem as the page shows it: its words, its fixes, the lines and cards it points at."""

    __slots__ = ("id", "code", "severity", "message", "hint", "lines", "fixes", "rule", "pick", "cards", "short")

    #: what the page's template asks to tell a group from a problem
    is_group = False

    id: str
    code: str
    severity: str
    message: str
    hint: str | None
    lines: tuple[int, ...]
    fixes: list[FixView]
    rule: str  # the rule's name: its entry on the rules page (/rules#name)
    pick: Row | None  # an unknown card's line: the script offers cards to pick for it
    cards: list[Row]  # up to MAX_PROBLEM_CARDS lines whose card image it shows
    short: str | None  # in a group: the card and its mark ("Iono (PAL 185), mark G"), the group says why

    def __init__(
        self,
        id: str,
        code: str,
        severity: str,
        message: str,
        hint: str | None,
        lines: tuple[int, ...],
        fixes: list[FixView] | None = None,
        rule: str = "",
        pick: Row | None = None,
        cards: list[Row] | None = None,
        short: str | None = None,
    ) -> None:
        self.id, self.code, self.severity, self.message = id, code, severity, message
        self.hint, self.lines = hint, lines
        self.fixes = [] if fixes is None else fixes
        self.rule, self.pick, self.short = rule, pick, short
        self.cards = [] if cards is None else cards


class Row:
    """One line of the list echoed back with its marks (the page's echo fills them in)."""

    __slots__ = (
        "line",
        "text",
        "status",
        "status_text",
        "icon",
        "card",
        "via",
        "suggestions",
        "problems",
        "count",
        "title",
        "printing",
        "mark",
        "group",
        "image",
        "note",
    )

    line: int
    text: str
    status: str | None  # legal | not-legal | banned | unknown | unchecked | unread
    status_text: str
    icon: str
    card: str | None  # resolved name and set, e.g. "Iono (PAL 185)"
    via: str | None  # the legal reprint, when it is another printing
    suggestions: tuple[str, ...]
    problems: list[ProblemView]
    count: int  # copies, for a card line
    title: str  # the card's name (as written, for a card that did not resolve)
    printing: str  # "PAL 185"
    mark: str | None  # the card's regulation mark
    group: str | None  # one of GROUPS, for a card line
    image: str | None
    note: str | None  # a header whose count disagrees with the cards under it

    def __init__(
        self,
        line: int,
        text: str,
        status: str | None = None,
        status_text: str = "",
        icon: str = "",
        card: str | None = None,
        via: str | None = None,
        suggestions: tuple[str, ...] = (),
        problems: list[ProblemView] | None = None,
        count: int = 0,
        title: str = "",
        printing: str = "",
        mark: str | None = None,
        group: str | None = None,
        image: str | None = None,
        note: str | None = None,
    ) -> None:
        self.line, self.text, self.status, self.status_text, self.icon = line, text, status, status_text, icon
        self.card, self.via, self.suggestions = card, via, suggestions
        self.problems = [] if problems is None else problems
        self.count, self.title, self.printing, self.mark, self.group = count, title, printing, mark, group
        self.image, self.note = image, note

    @property
    def flagged(self) -> bool:
        """Shown by "only lines with problems": an error or a warning, or a header note."""
        return self.note is not None or any(p.severity in (ERROR, WARNING) for p in self.problems)

    @property
    def worst(self) -> str | None:
        sev = {p.severity for p in self.problems}
        return next((s for s in (ERROR, WARNING, INFO) if s in sev), None)


_STATUS = {
    "legal": ("✓", "Legal"),
    "not-legal": ("✗", "Not legal"),
    "banned": ("✗", "Banned"),
    "unknown": ("?", "Unknown card"),
    "unchecked": ("–", "Legality not checked"),
    "unread": ("✗", "Not a card line"),
}


def _row_for_card(ln, unchecked: bool, db, host: str | None) -> Row:
    row = Row(ln.line, ln.raw, count=ln.count)
    if ln.card is None:
        row.status = "unknown"
        row.suggestions = tuple(ln.suggestions)
        row.title, row.group = ln.name, GROUPS[-1]
        row.printing = " ".join(x for x in (ln.set_code, ln.number) if x)
    else:
        row.card = ln.card.label
        row.title, row.printing, row.group = ln.card.name, f"{ln.card.set_code} {ln.card.number}", ln.card.supertype
        if ln.language is not None:  # a name in another language: as written, then the card's own
            row.title = f"{ln.name} ({ln.card.name})"
        row.mark = ln.card.mark
        row.image = image_url(ln.card, db, host)
        if unchecked:
            row.status = "unchecked"
        elif ln.ban is not None:
            row.status = "banned"
        elif ln.legal:
            row.status = "legal"
            if ln.legal_via is not None and ln.legal_via is not ln.card:
                row.via = ln.legal_via.label
        else:
            row.status = "not-legal"
    return row


def echo_rows(text: str, report, problems: list[ProblemView], host: str | None = None) -> list[Row]:
    """Every non-blank line as pasted (JSON decks: every entry), with its marks."""
    unchecked = any(p.rule == "date-out-of-range" for p in report.problems)
    db = get_db()
    by_line = {ln.line: _row_for_card(ln, unchecked, db, host) for ln in report.lines}
    rows: dict[int, Row] = {}
    if is_json_deck(text):
        rows.update(by_line)
    else:
        notes = header_notes(text)
        for n, raw in enumerate(_LINE_BREAK.split(text.removeprefix("\ufeff")), start=1):
            if raw.strip():
                rows[n] = by_line.get(n) or Row(n, raw, note=notes.get(n))
    for pv, problem in zip(problems, report.problems, strict=False):
        for n in problem.lines:
            row = rows.setdefault(n, Row(n, ""))
            row.problems.append(pv)
            if row.image and len(pv.cards) < MAX_PROBLEM_CARDS:
                pv.cards.append(row)
            if problem.rule == "unparsed-line" and row.status is None:
                row.status = "unread"
    for row in rows.values():
        if row.status:
            row.icon, row.status_text = _STATUS[row.status]
    return [rows[n] for n in sorted(rows)]


def fix_view(fix: Fix, share_path_: str | None) -> FixView:
    """The fix as the page offers it: a link from the list's share path, and the edits for the script."""
    query = urlencode([("fix", p) for p in fix.params])
    return FixView(fix.label, f"{share_path_}&{query}#verdict" if share_path_ else None, query, fix.alternative)


def deck_groups(rows: list[Row], limit: int | None = None) -> list[dict]:
    """The card lines by group (GROUPS order), each with its number of cards (all its lines'); with
    ``limit``, the first ``limit`` lines of the list (in list order) are the ones each group shows."""
    kept = {id(r) for r in rows[:limit]} if limit is not None else None
    out = []
    for name in GROUPS:
        items = [r for r in rows if r.group == name]
        if items:
            shown = items if kept is None else [r for r in items if id(r) in kept]
            out.append({"name": name, "rows": shown, "cards": sum(r.count for r in items)})
    return out
