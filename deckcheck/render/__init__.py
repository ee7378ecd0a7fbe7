"""Render reports and decks as text: a clean PTCGL export, and the CI output formats.

Each CI renderer takes a run's results, a list of ``(path, Report)``, and
returns the whole output as one string; escaping for each target lives with
its renderer.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING
from urllib.parse import quote

import orjson

from ..names import ENERGY_TYPES, basic_energy_type, without_subtitle
from ..problems import CATALOGUE, ERROR, INFO, WARNING, Problem, Report, cards_json
from ..wording import plural

if TYPE_CHECKING:
    from ..cards import Card

#: a run's results: (path, report) for each deck
Results = Sequence[tuple[str, Report]]

_SYMBOL_OF = {v: k for k, v in ENERGY_TYPES.items()}
SECTIONS = (("Pokémon", "Pokémon"), ("Trainer", "Trainer"), ("Energy", "Energy"))


def export_name(card: Card) -> str:
    """The name as PTCGL writes it: ``Basic {R} Energy``; no trainer subtitle."""
    if card.is_basic_energy and (t := basic_energy_type(card.name)) is not None:
        return f"Basic {{{_SYMBOL_OF[t]}}} Energy"
    return without_subtitle(card.name)


def _export_groups(report: Report) -> dict[str, dict[tuple[str, str, str], list[int]]]:
    """Section label -> {(name, set code, number): [copies]}, in list order: what the export writes.

    A line that did not resolve is kept as written, in the section it came from; so is a line
    whose set code the database does not know (``unknown-set``: a newer set's printing is never
    rewritten as an older one).
    """
    groups: dict[str, dict[tuple[str, str, str], list[int]]] = {s: {} for s, _ in SECTIONS}
    as_written = {n for p in report.problems if p.rule == "unknown-set" for n in p.lines}
    for ln in report.lines:
        if ln.card is not None and ln.line in as_written:
            section = ln.card.supertype
            key = (ln.name, ln.set_code or "", ln.number or "")
        elif ln.card is not None:
            section = ln.card.supertype
            key = (export_name(ln.card), ln.card.set_code, ln.card.number)
        else:
            section = {"pokemon": "Pokémon", "trainer": "Trainer", "energy": "Energy"}.get(ln.section or "", "Trainer")
            key = (ln.name, ln.set_code or "", ln.number or "")
        entry = groups[section].setdefault(key, [0])
        entry[0] += ln.count
    return groups


def section_counts(report: Report) -> dict[str, int]:
    """Copies per export section (``Pokémon``, ``Trainer``, ``Energy``): the numbers in the export's
    headers. A card that did not resolve counts in the section its line came from (Trainer in a
    list without headers), as the export places it."""
    return {section: sum(count for (count,) in rows.values()) for section, rows in _export_groups(report).items()}


def ptcgl_export(report: Report) -> str:
    """The deck as a clean Pokémon TCG Live export.

    Resolved names and set codes, duplicate lines of one printing merged (lines kept as
    written: :func:`_export_groups`), section headers with the number of cards in the section
    (:func:`section_counts`), and ``Total Cards``. PTCGL itself writes the number of lines in a
    header and Limitless the number of cards; importers ignore the header counts, so the
    export states the same card counts as the page's counts table.
    """
    groups = _export_groups(report)
    out = []
    for section, label in SECTIONS:
        rows = groups[section]
        if not rows:
            continue
        out.append(f"{label}: {sum(count for (count,) in rows.values())}")
        for (name, code, number), (count,) in rows.items():
            out.append(" ".join(str(x) for x in (count, name, code, number) if x != ""))
        out.append("")
    out.append(f"Total Cards: {sum(ln.count for ln in report.lines)}")
    return "\n".join(out) + "\n"


# -- CI output formats ---------------------------------------------------------

#: annotations GitHub shows per step, per level; it drops the rest silently (actions/toolkit
#: docs/problem-matchers.md, "Limitations": 10 warning, 10 error and 10 notice annotations per
#: step, 50 per job)
GITHUB_ANNOTATIONS_PER_LEVEL = 10
GITHUB_ANNOTATIONS_PER_JOB = 50
#: GitHub accepts at most 1 MiB of job summary per step
GITHUB_SUMMARY_MAX_BYTES = 1024 * 1024
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_GITHUB_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "notice"}
_SARIF_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}
#: ANSI colour codes of the text output, by severity: red, yellow, cyan
_COLOUR = {ERROR: 31, WARNING: 33, INFO: 36}
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# characters XML 1.0 cannot carry at all, even escaped: the complement of its Char production (tab, LF, CR,
# U+0020-U+D7FF, U+E000-U+FFFD, U+10000-U+10FFFF), written as the few ranges it leaves out (the negated
# class of the allowed ranges took ~10 ms to compile, at every start)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


@dataclass(frozen=True)
class Options:
    """What a renderer may be asked besides the results.

    :param fail_on: ``error`` or ``warning``: the lowest severity that fails a deck.
    :param summary: end human-facing output with a one-line summary.
    :param color: style text output with ANSI colours.
    :param command_safe: text output inside GitHub Actions, whose runner reads a log line's ``::`` and
        ``##[`` as a command: user text as :func:`github_safe` makes it (the ``github`` format always is).
    :param only_failing: the people's formats (``text``, ``github``) show only the problems that fail a
        deck under ``fail_on`` (``-q``); the tools' formats always carry every problem.
    """

    fail_on: str = ERROR
    summary: bool = True
    color: bool = False
    only_failing: bool = False
    command_safe: bool = False


def fails(report: Report, fail_on: str = ERROR) -> bool:
    """Does this deck fail the run? Errors always do; warnings too with ``fail_on="warning"``."""
    return not report.valid or (fail_on == WARNING and bool(report.warnings))


def failing(problem: Problem, fail_on: str = ERROR) -> bool:
    """Does this problem fail its deck under ``fail_on``? (an error always; a warning with ``warning``)"""
    return problem.severity == ERROR or (fail_on == WARNING and problem.severity == WARNING)


def _shown_problems(report: Report, opts: Options) -> list[Problem]:
    """The problems a people's format shows: all, or only the failing ones (``-q``)."""
    if not opts.only_failing:
        return list(report.problems)
    return [p for p in report.problems if failing(p, opts.fail_on)]


def summary_line(results: Results, fail_on: str = ERROR) -> str:
    """``Checked 3 decks: 1 passed, 2 failed (15 errors, 1 warning, 2 info).`` (passing follows ``fail_on``)"""
    if not results:
        return "No decklists checked."
    failed = sum(fails(r, fail_on) for _, r in results)
    tally = {s: sum(p.severity == s for _, r in results for p in r.problems) for s in (ERROR, WARNING, INFO)}
    words = [plural(tally[ERROR], "error"), plural(tally[WARNING], "warning"), f"{tally[INFO]} info"]
    counts = ", ".join(w for w, n in zip(words, tally.values(), strict=True) if n)
    head = f"Checked {plural(len(results), 'deck')}: "
    head += f"{len(results) - failed} passed, {failed} failed" if failed else "all passed"
    return head + (f" ({counts})." if counts else ".")


def _one_line(text: str) -> str:
    """Control characters from a pasted list as escapes: one problem stays one terminal line, colourless."""
    return _CONTROL.sub(lambda m: repr(m.group())[1:-1], text)


def _sentence(problem: Problem) -> str:
    return f"{problem.message} {problem.hint}" if problem.hint else problem.message


def _ansi(text: str, fg: int | None = None, bold: bool | None = None) -> str:
    """``text`` in an ANSI colour (a code from :data:`_COLOUR`) and bold or not, then a reset: the
    bytes ``click.style(text, fg=..., bold=...)`` writes, without click in the core."""
    start = (f"\033[{fg}m" if fg is not None else "") + ("" if bold is None else f"\033[{1 if bold else 22}m")
    return f"{start}{text}\033[0m"


def render_text(results: Results, opts: Options = Options()) -> str:
    """One problem a line, ``path:line: rule message``, in line order; then a summary.

    A problem about the whole deck (deck-size, no-basic-pokemon) has no line:
    ``path: rule message``. Warnings and info say so after the rule name.
    """

    def style(text: str, fg: int | None = None, bold: bool | None = None) -> str:
        return _ansi(text, fg, bold) if opts.color else text

    shown = github_text if opts.command_safe else _one_line
    out = []
    for path, report in results:
        for p in sorted(_shown_problems(report, opts), key=lambda p: p.line or 0):
            where = shown(f"{path}:{p.line}:" if p.line else f"{path}:")
            rule = style(p.rule, fg=_COLOUR[p.severity], bold=p.severity == ERROR)
            level = "" if p.severity == ERROR else f" ({p.severity})"
            out.append(f"{style(where, bold=True)} {rule}{level} {shown(_sentence(p))}")
    if opts.summary:
        out.append(style(summary_line(results, opts.fail_on), bold=True))
    return "".join(line + "\n" for line in out)


def render_json(results: Results, opts: Options = Options()) -> str:
    """One JSON array of the API's report JSON, each with its ``path`` first, one report a line.

    One compact report a line keeps 1,000 decks fast to write (indenting is three times
    slower) and easy to grep, but the output is one document: parse all of it (``jq``
    pretty-prints it). For one document a line, see :func:`render_jsonl`.
    """
    docs = (_report_json(path, report) for path, report in results)
    return "[\n" + ",\n".join(docs) + "\n]\n" if results else "[]\n"


def render_jsonl(results: Results, opts: Options = Options()) -> str:
    """JSON Lines: one report (the API's JSON, with its ``path`` first) a line, nothing else."""
    return "".join(_report_json(path, report) + "\n" for path, report in results)


def _report_json(path: str, report: Report) -> str:
    """One report as compact JSON on one line, its ``path`` first (orjson: the API's bytes, and about six
    times faster than the standard library's encoder for 1,000 reports)."""
    return json_command_safe(orjson.dumps({"path": path, **report.to_dict(cards_view=cards_json)}).decode())


def json_command_safe(document: str) -> str:
    """A JSON document in which no runner finds a workflow command, with the same data: ``#`` of every
    ``##[`` and ``:`` of every ``::`` written as JSON's ``\\u0023`` and ``\\u003a`` escapes. (Neither
    ``##[`` nor ``::`` can occur in JSON outside a string, so the replacement never touches its structure;
    a CI log that prints a report cannot be told to mask, fail or set an output by a card's name.)"""
    return document.replace("##[", "\\u0023#[").replace("::", ":\\u003a")


def xml_command_safe(document: str) -> str:
    """:func:`json_command_safe` for XML: character references ``&#35;`` and ``&#58;``, the same text."""
    return document.replace("##[", "&#35;#[").replace("::", ":&#58;")


def github_data(text: str) -> str:
    """Escape a workflow command's message (actions/toolkit ``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """Escape a workflow command property such as ``file=`` (actions/toolkit ``escapeProperty``)."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


#: what the Actions runner reads as a workflow command in a log line: ``::`` (a line that starts with it,
#: after spaces) and ``##[`` (its legacy form, anywhere in a line: ``##[error]``, ``##[add-mask]``,
#: ``##[set-output]``); each match's first character is where :data:`GITHUB_BREAK` goes
_GITHUB_COMMAND = re.compile(r":(?=:)|#(?=#\[)")
#: ZERO WIDTH SPACE: put inside ``::`` and ``##[`` in text a deck, a file or a folder supplied, it keeps
#: the text as it reads while no runner can take it for a command
GITHUB_BREAK = "\u200b"


def github_text(text: str) -> str:
    """User text (a card name, a file name, a message quoting either) as a ``github`` log line may carry
    it: one line (control characters as escapes, :func:`_one_line`), and :func:`github_safe`."""
    return github_safe(_one_line(text))


def github_safe(text: str) -> str:
    """Text no runner reads as a workflow command: a zero-width space (:data:`GITHUB_BREAK`) after the
    first character of every ``::`` and ``##[``. Linear in the text."""
    return _GITHUB_COMMAND.sub(lambda m: m.group() + GITHUB_BREAK, text)


_LEVEL_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


def _by_severity(results: Results, opts: Options) -> list[tuple[str, Problem]]:
    """Every (path, problem) a run shows, most severe first; within a severity the decks that fail
    first, then in path and line order."""
    found = [
        (not fails(report, opts.fail_on), path, p) for path, report in results for p in _shown_problems(report, opts)
    ]
    found.sort(key=lambda fpp: (_LEVEL_RANK[fpp[2].severity], fpp[0], fpp[1], fpp[2].line or 0))
    return [(path, p) for _, path, p in found]


def github_annotations(
    results: Results, opts: Options = Options()
) -> tuple[list[tuple[str, Problem]], list[tuple[str, Problem]]]:
    """(annotated, not annotated): the (path, problem) pairs that get a workflow annotation, and the rest.

    GitHub shows :data:`GITHUB_ANNOTATIONS_PER_LEVEL` annotations of each level a step (and
    :data:`GITHUB_ANNOTATIONS_PER_JOB` a job) and drops the rest, so the slots go to failures first:
    errors, then warnings, failing decks before passing ones, and notices (info) only when every
    error and warning got its annotation, so that info never stands where a failure went unseen.
    """
    annotated: list[tuple[str, Problem]] = []
    rest: list[tuple[str, Problem]] = []
    shown = {ERROR: 0, WARNING: 0, INFO: 0}
    for path, p in _by_severity(results, opts):
        room = shown[p.severity] < GITHUB_ANNOTATIONS_PER_LEVEL and len(annotated) < GITHUB_ANNOTATIONS_PER_JOB
        if p.severity == INFO and rest:
            room = False  # an error or a warning already went to the log: no notice
        if room:
            shown[p.severity] += 1
            annotated.append((path, p))
        else:
            rest.append((path, p))
    return annotated, rest


def render_github(results: Results, opts: Options = Options()) -> str:
    """GitHub Actions annotations, ``::error file=...,line=...,title=...::message``, as many as GitHub shows.

    :func:`github_annotations` chooses them, failures first; the problems past that are printed as
    plain log lines (``path:line: rule message``) after a note saying how many, so none is lost. A
    problem without a line points at line 1. Every line is a workflow command deckcheck means or text
    no runner can read as one: user text goes through :func:`github_text`, in a message and in the
    ``file`` property alike (a file named with ``##[`` gets its annotation without its location rather
    than a command).
    """
    annotated, rest = github_annotations(results, opts)
    out: list[str] = []
    for path, p in annotated:
        where = f"file={github_property(github_safe(path))},line={p.line or 1}"
        title = f"title={github_property(f'{p.rule} ({p.code})')}"
        # the message's line breaks stay in the annotation, escaped (%0A) on one log line
        out.append(f"::{_GITHUB_LEVEL[p.severity]} {where},{title}::{github_data(github_safe(_sentence(p)))}")
    if rest:
        out.append(
            f"{plural(len(rest), 'more problem')} not annotated (GitHub shows "
            f"{GITHUB_ANNOTATIONS_PER_LEVEL} errors, {GITHUB_ANNOTATIONS_PER_LEVEL} warnings and "
            f"{GITHUB_ANNOTATIONS_PER_LEVEL} notices per step; notices only when every failure has its "
            "annotation); every problem is in the job summary:"
        )
        for path, p in rest:
            level = "" if p.severity == ERROR else f" ({p.severity})"
            where = f"{path}:{p.line}:" if p.line else f"{path}:"
            out.append(github_text(f"{where} {p.rule}{level} {_sentence(p)}"))
    if opts.summary:
        out.append(summary_line(results, opts.fail_on))
    return "".join(line + "\n" for line in out)


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~>-])")


def _md(text: str) -> str:
    """Text as Markdown that shows it literally (GitHub renders HTML in summaries: escape that too), and
    as :func:`github_text` makes it (no ``::`` or ``##[``, though a summary is no log)."""
    text = github_text(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def github_summary(results: Results, opts: Options = Options(), link: Callable[[str, int], str] | None = None) -> str:
    """The Markdown job summary (``$GITHUB_STEP_SUMMARY``): every deck's verdict and every problem.

    Failing decks first (then in path order), in the table and in the list of problems; when some
    problems got no annotation (:func:`github_annotations`) it says how many. ``link(path, line)``
    gives the URL of a file's line (default ``path#Lline``). The summary is cut, with a note, before
    it would pass GitHub's 1 MiB.
    """
    link = link or (lambda path, line: f"{quote(path, safe='/')}#L{line}")
    ordered = sorted(results, key=lambda pr: not fails(pr[1], opts.fail_on))  # stable: path order kept
    head = ["## deckcheck", "", _md(summary_line(results, opts.fail_on)), ""]
    _, rest = github_annotations(results, Options(opts.fail_on))
    if rest:
        head += [
            f"**{plural(len(rest), 'problem')} not annotated**: GitHub shows {GITHUB_ANNOTATIONS_PER_LEVEL} "
            f"annotations of each level a step; {'they are' if len(rest) > 1 else 'it is'} listed below "
            "with the rest.",
            "",
        ]
    if results:
        head += ["| deck | verdict | format | date | errors | warnings | info |", "|---|---|---|---|---:|---:|---:|"]
        for path, report in ordered:
            tally = [sum(p.severity == s for p in report.problems) for s in (ERROR, WARNING, INFO)]
            verdict = "❌ fails" if fails(report, opts.fail_on) else "✅ passes"
            head.append(
                f"| [{_md(path)}]({link(path, 1)}) | {verdict} | {_md(report.format_name)} | "
                f"{report.as_of} | {tally[0]} | {tally[1]} | {tally[2]} |"
            )
        head.append("")
    body = []
    for path, report in ordered:
        if not report.problems:
            continue
        body += [f"### [{_md(path)}]({link(path, 1)})", ""]
        for p in report.problems:
            where = f"[line {p.line}]({link(path, p.line)})" if p.line else "whole deck"
            body.append(f"- **{p.severity}** {where} `{p.rule}` ({p.code}): {_md(_sentence(p))}")
        body.append("")
    out, size = [], 0
    for line in head + body:
        size += len(line.encode()) + 1
        if size > GITHUB_SUMMARY_MAX_BYTES - 200:
            out.append("")
            out.append("_The summary stops here: GitHub accepts at most 1 MiB. The log has every problem._")
            break
        out.append(line)
    return "\n".join(out) + "\n"


def _artifact_uri(path: str) -> str:
    if path.startswith("/"):
        return PurePosixPath(path).as_uri()
    return quote(path, safe="/")


def _version() -> str:
    from ..version import __version__

    return __version__


def render_sarif(results: Results, opts: Options = Options()) -> str:
    """SARIF 2.1.0: one run, one rule per rule name that occurs, one result per problem.

    info becomes ``note``; a problem without a line points at line 1.
    """
    used = sorted({p.rule for _, r in results for p in r.problems})
    index = {rule: i for i, rule in enumerate(used)}
    rules = [
        {
            "id": rule,
            "name": rule,
            "shortDescription": {"text": CATALOGUE[rule].title},
            "defaultConfiguration": {"level": _SARIF_LEVEL[CATALOGUE[rule].severity]},
            "properties": {"code": CATALOGUE[rule].code},
        }
        for rule in used
    ]
    found = [
        {
            "ruleId": p.rule,
            "ruleIndex": index[p.rule],
            "level": _SARIF_LEVEL[p.severity],
            "message": {"text": _sentence(p)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _artifact_uri(path)},
                        "region": {"startLine": p.line or 1},
                    }
                }
            ],
            "properties": {"code": p.code, "format": report.format, "as_of": report.as_of},
        }
        for path, report in results
        for p in report.problems
    ]
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "deckcheck", "version": _version(), "rules": rules}},
                "results": found,
            }
        ],
    }
    return json_command_safe(json.dumps(doc, ensure_ascii=False, indent=2)) + "\n"


def _xml_text(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def render_junit(results: Results, opts: Options = Options()) -> str:
    """JUnit XML: one test case per deck, a ``<failure>`` for each deck that fails the run.

    A passing deck with warnings or info lists them in ``<system-out>``.
    """
    failed = sum(fails(r, opts.fail_on) for _, r in results)
    counts = {"tests": str(len(results)), "failures": str(failed), "errors": "0", "skipped": "0"}
    suites = ET.Element("testsuites", {"name": "deckcheck", **counts})
    suite = ET.SubElement(suites, "testsuite", {"name": "deckcheck", **counts})
    for path, report in results:
        case = ET.SubElement(
            suite, "testcase", classname=f"deckcheck.{report.format}", name=_xml_text(path), file=_xml_text(path)
        )
        lines = render_text([(path, report)], Options(summary=False))
        if fails(report, opts.fail_on):
            first = report.problems[0]
            failure = ET.SubElement(case, "failure", type=first.rule, message=_xml_text(report.summary))
            failure.text = _xml_text(lines)
        elif lines:
            ET.SubElement(case, "system-out").text = _xml_text(lines)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml_command_safe(ET.tostring(suites, encoding="unicode")) + "\n"


RENDERERS = {
    "text": render_text,
    "json": render_json,
    "jsonl": render_jsonl,
    "github": render_github,
    "sarif": render_sarif,
    "junit": render_junit,
}
#: the output formats, in the order the command line offers them: the renderers' names (one list)
OUTPUT_FORMATS = tuple(RENDERERS)


def render(output_format: str, results: Results, opts: Options = Options()) -> str:
    """Render a run's results, a list of (path, Report), in one of :data:`OUTPUT_FORMATS`."""
    return RENDERERS[output_format](results, opts)
