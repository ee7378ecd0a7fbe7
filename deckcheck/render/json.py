"""The ``json`` and ``jsonl`` output formats: the API's report JSON for each deck, its ``path`` first; and
the report's card lines as one JSON array (:func:`cards_json`), which the API's answer uses too."""

from __future__ import annotations

from typing import Any

import orjson

from ..problems import Report
from .commandsafe import json_command_safe
from .results import DEFAULT_OPTIONS, Options, Results


def render_json(results: Results, opts: Options = DEFAULT_OPTIONS) -> str:
    """One JSON array of the API's report JSON, each with its ``path`` first, one report a line.

    One compact report a line keeps 1,000 decks fast to write (indenting is three times
    slower) and easy to grep, but the output is one document: parse all of it (``jq``
    pretty-prints it). For one document a line, see :func:`render_jsonl`.
    """
    docs = (_report_json(path, report) for path, report in results)
    return "[\n" + ",\n".join(docs) + "\n]\n" if results else "[]\n"


def render_jsonl(results: Results, opts: Options = DEFAULT_OPTIONS) -> str:
    """JSON Lines: one report (the API's JSON, with its ``path`` first) a line, nothing else."""
    return "".join(_report_json(path, report) + "\n" for path, report in results)


def _report_json(path: str, report: Report) -> str:
    """One report as compact JSON on one line, its ``path`` first (orjson: the API's bytes, and about six
    times faster than the standard library's encoder for 1,000 reports)."""
    return json_command_safe(orjson.dumps({"path": path, **report.to_dict(cards_view=cards_json)}).decode())


#: ``,{"line":N,`` for the line numbers of a decklist within the default limits (cards_json)
_LINE_OPENERS = [b',{"line":%d,' % n for n in range(1024)]


def cards_json(lines: list[Any]) -> orjson.Fragment:
    """A report's card lines (``engine.ResolvedLine``) as one JSON array, for ``Report.to_dict(cards_view=...)``.

    The same JSON as ``[line.to_dict(card_view=Card.json_fragment) ...]`` encoded, written from each
    line's number and its encoded rest (``json_tail()``, made once per line text, format and date):
    one join of byte strings, no per-line dict, fragment or copy.
    """
    if not lines:
        return orjson.Fragment(b"[]")
    openers, parts = _LINE_OPENERS, [b"["]
    add = parts.append
    for line in lines:
        n = line.line
        add(openers[n] if 0 < n < 1024 else b',{"line":%d,' % n)
        tail = line.facts.json_tail
        add(tail if tail is not None else line.json_tail())
    parts[1] = parts[1][1:]  # no comma before the first line
    add(b"]")
    return orjson.Fragment(b"".join(parts))
