"""Dates as users write them: ``YYYY-MM-DD`` (the command line's ``--as-of``, the repository settings'
``as-of``, the Discord command's ``date``)."""

from __future__ import annotations

import datetime as dt

from .patterns import Pattern

_DATE = Pattern(r"\d{4}-\d{2}-\d{2}")


def parse_date(value: str) -> dt.date:
    """``YYYY-MM-DD`` and nothing looser. Raises ValueError naming the value."""
    if _DATE.fullmatch(value):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"{value!r} is not a date (YYYY-MM-DD)")
