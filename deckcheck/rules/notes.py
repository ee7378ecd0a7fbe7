"""Problems no format runs as a rule, registered here so the catalogue has every code: the
engine's (a date before the format's data, suggestions skipped, a stale database), the rotation
forecast's, and the input's (too large, unreadable, a link out of the tree being checked).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from ..problems import Problem
from ..registry import ERROR, INFO, WARNING, declare
from .words import UPDATE_ADVICE, newest_set_phrase, plural

if TYPE_CHECKING:
    from ..cards import CardDB

INPUT_LIMIT = declare(
    "input-limit", code="P103", severity=ERROR, title="The decklist is larger than the service accepts"
)
UNREADABLE_FILE = declare(
    "unreadable-file",
    code="P104",
    severity=ERROR,
    title="A file that cannot be read as UTF-8 text (binary, another encoding, a lone surrogate)",
)
SUGGESTIONS_SKIPPED = declare(
    "suggestions-skipped",
    code="P105",
    severity=INFO,
    title="Unknown names past the per-deck limit get no did-you-mean suggestions",
)
SYMLINK_OUTSIDE_TREE = declare(
    "symlink-outside-tree",
    code="P115",
    severity=ERROR,
    title="A symbolic link to a file outside the tree being checked; not read",
)
UNREACHABLE_PATH = declare(
    "unreachable-path",
    code="P116",
    severity=ERROR,
    title="A folder deckcheck check cannot enter (a path too long or deep, no permission); its decks are not checked",
)
STALE_DATABASE = declare(
    "stale-database",
    code="C105",
    severity=WARNING,
    title="The card database's newest set is older than the configured maximum age",
)
DATE_OUT_OF_RANGE = declare(
    "date-out-of-range", code="R203", severity=ERROR, title="A date the format's data does not cover"
)
ROTATION_FORECAST = declare(
    "rotation-forecast",
    code="R401",
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
