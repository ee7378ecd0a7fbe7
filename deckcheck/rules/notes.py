"""Problems no format runs as a rule, registered here so the catalogue has every code: the
engine's (a date before the format's data, suggestions skipped, a stale database), the rotation
forecast's, and the input's (too large, unreadable, a link out of the tree being checked).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..problems import Problem
from ..registry import ERROR, INFO, WARNING, declare
from .reading import NOT_A_DECKLIST
from .words import UPDATE_ADVICE, newest_set_phrase, plural, quoted

if TYPE_CHECKING:
    from ..cards import CardDB
    from ..deck import ResolvedLine

INPUT_LIMIT = declare(
    "input-limit",
    code="P103",
    description="The decklist is larger than the service accepts",
    severity=ERROR,
    title="The decklist is larger than the service accepts",
)
UNREADABLE_FILE = declare(
    "unreadable-file",
    code="P104",
    description=(
        "A file that cannot be read as UTF-8 text (or a JSON deck in it holds a lone surrogate escape), or a"
        " path that is not a regular file (a FIFO, a socket, a device; never opened) (CLI)"
    ),
    severity=ERROR,
    title="A file that cannot be read as UTF-8 text (binary, another encoding, a lone surrogate)",
)
SUGGESTIONS_SKIPPED = declare(
    "suggestions-skipped",
    code="P105",
    description='A deck with more than 25 distinct unknown names: the rest get no "did you mean" suggestions',
    severity=INFO,
    title="Unknown names past the per-deck limit get no did-you-mean suggestions",
)
SYMLINK_OUTSIDE_TREE = declare(
    "symlink-outside-tree",
    code="P115",
    description=(
        "A symbolic link to a file outside the tree being checked: not followed, nothing of its target is"
        " read or shown (CLI)"
    ),
    severity=ERROR,
    title="A symbolic link to a file outside the tree being checked; not read",
)
UNREACHABLE_PATH = declare(
    "unreachable-path",
    code="P116",
    description=(
        "A folder `deckcheck check` cannot enter (its path too long or too deep for the system, no permission):"
        " the decks in it are not checked, and the run fails (CLI)"
    ),
    severity=ERROR,
    title="A folder deckcheck check cannot enter (a path too long or deep, no permission); its decks are not checked",
)
STALE_DATABASE = declare(
    "stale-database",
    code="C105",
    description=(
        "The database's newest set was released more than `max-db-age` days before the check's date (only"
        " when that setting is given)"
    ),
    severity=WARNING,
    title="The card database's newest set is older than the configured maximum age",
)
DATE_OUT_OF_RANGE = declare(
    "date-out-of-range",
    code="R203",
    description="The date is before the format's data; legality was not checked",
    severity=ERROR,
    title="A date the format's data does not cover",
)
ROTATION_FORECAST = declare(
    "rotation-forecast",
    code="R401",
    description=(
        'Only when asked (`--forecast`, `"forecast": true`): a card the next Standard rotation would make illegal; '
        "info for a card a functional reprint keeps legal. Never an error"
    ),
    severity=WARNING,
    title="A card the next Standard rotation would make illegal (with --forecast)",
)


def stale_database(db: CardDB, on: dt.date, max_age: int) -> Problem | None:
    """The stale-database warning when the newest set is more than ``max_age`` days older
    than ``on`` (a check's date), else None. Not a format rule: a setting of the check
    (``max_db_age``, ``DECKCHECK_MAX_DB_AGE``, ``max-db-age``) asks for it."""
    age, newest = db.age_days(on), db.newest_set()
    if age is None or age <= max_age or newest is None:  # a database with an age has a newest set
        return None
    return Problem(
        STALE_DATABASE.name,
        f"The card database's newest set is {newest_set_phrase(db)}, "
        f"{plural(age, 'day')} before {on.isoformat()}; the most allowed is {plural(max_age, 'day')}.",
        hint=f"Cards from sets released after {newest.name} are unknown to it: {UPDATE_ADVICE}.",
    )


#: fewest lines that are not card lines for a text to be "not a decklist" (one or two stray lines are
#: each their own unparsed-line warning)
NOT_A_DECKLIST_MIN = 3
_UNPARSED = "unparsed-line"


def not_a_decklist(problems: list[Problem], lines: Sequence[ResolvedLine]) -> list[Problem]:
    """The parser's ``problems`` for a text with card ``lines``: when most of its lines (at least
    :data:`NOT_A_DECKLIST_MIN`) are not card lines, one ``not-a-decklist`` error naming the first
    card-like line, if any, in place of an ``unparsed-line`` warning per line; else ``problems``."""
    unparsed = sum(1 for p in problems if p.rule == _UNPARSED)
    if unparsed < NOT_A_DECKLIST_MIN or unparsed <= len(lines):
        return problems
    first = min(lines, key=lambda ln: ln.line) if lines else None
    message = (
        f"This does not look like a decklist: {unparsed:,} of its {unparsed + len(lines):,} lines are not card lines."
    )
    if first is not None:
        message += f" The first line that looks like a card is line {first.line}: {quoted(first.raw)}."
    else:
        message += " No line looks like a card."
    # no line: the problem is about the whole text (it sorts before the errors of lines)
    one = Problem(
        NOT_A_DECKLIST.name,
        message,
        hint='Paste only the list: one card per line, its count first, like "4 Nest Ball SVI 181".',
    )
    return [one, *(p for p in problems if p.rule != _UNPARSED)]
