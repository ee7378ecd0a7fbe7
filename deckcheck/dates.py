"""Dates as users write them, one reading everywhere: the command line's ``--as-of``, the repository
settings' ``as-of``, the API's ``as_of``, the web page's date field and the Discord command's ``date``
(:func:`parse_date`)."""

from __future__ import annotations

import datetime as dt

#: the longest date text read (``2026-W18-5``, ``2026-05-01``): a longer one is no date
DATE_MAX_CHARS = 10
#: how a date is written, for messages
DATE_FORM = "YYYY-MM-DD"


def parse_date(value: str) -> dt.date:
    """A date as ISO 8601 writes it, as Python's :meth:`datetime.date.fromisoformat` reads one
    (``2026-05-01``, ``20260501``, ``2026-W18-5``), blanks around it ignored (a pasted date). Raises
    ValueError naming the value."""
    text = value.strip()
    if len(text) <= DATE_MAX_CHARS:
        try:
            return dt.date.fromisoformat(text)
        except ValueError:
            pass
    shown = value if len(value) <= 40 else value[:39] + "…"
    raise ValueError(f"{shown!r} is not a date ({DATE_FORM})")
