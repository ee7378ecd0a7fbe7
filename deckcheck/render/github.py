"""The ``github`` output format: GitHub Actions annotations, failures first, and the Markdown job summary
(``$GITHUB_STEP_SUMMARY``); with the escaping of a workflow command's message and properties."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import quote

from ..patterns import Pattern
from ..problems import ERROR, INFO, WARNING, Problem
from ..wording import plural
from .commandsafe import github_safe, github_text
from .results import DEFAULT_OPTIONS, Options, Results, fails, sentence, shown_problems, summary_line

#: annotations GitHub shows per step, per level; it drops the rest silently (actions/toolkit
#: docs/problem-matchers.md, "Limitations": 10 warning, 10 error and 10 notice annotations per
#: step, 50 per job)
GITHUB_ANNOTATIONS_PER_LEVEL = 10
GITHUB_ANNOTATIONS_PER_JOB = 50
#: GitHub accepts at most 1 MiB of job summary per step
GITHUB_SUMMARY_MAX_BYTES = 1024 * 1024
_GITHUB_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "notice"}


def github_data(text: str) -> str:
    """Escape a workflow command's message (actions/toolkit ``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def github_property(text: str) -> str:
    """Escape a workflow command property such as ``file=`` (actions/toolkit ``escapeProperty``)."""
    return github_data(text).replace(":", "%3A").replace(",", "%2C")


_LEVEL_RANK = {ERROR: 0, WARNING: 1, INFO: 2}


def _by_severity(results: Results, opts: Options) -> list[tuple[str, Problem]]:
    """Every (path, problem) a run shows, most severe first; within a severity the decks that fail
    first, then in path and line order."""
    found = [
        (not fails(report, opts.fail_on), path, p) for path, report in results for p in shown_problems(report, opts)
    ]
    found.sort(key=lambda fpp: (_LEVEL_RANK[fpp[2].severity], fpp[0], fpp[1], fpp[2].line or 0))
    return [(path, p) for _, path, p in found]


def github_annotations(
    results: Results, opts: Options = DEFAULT_OPTIONS
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


def render_github(results: Results, opts: Options = DEFAULT_OPTIONS) -> str:
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
        out.append(f"::{_GITHUB_LEVEL[p.severity]} {where},{title}::{github_data(github_safe(sentence(p)))}")
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
            out.append(github_text(f"{where} {p.rule}{level} {sentence(p)}"))
    if opts.summary:
        out.append(summary_line(results, opts.fail_on))
    return "".join(line + "\n" for line in out)


#: The characters Markdown reads as markup.
_MD_SPECIAL = Pattern(r"([\\`*_{}\[\]()#+!|~>-])")


def _md(text: str) -> str:
    """Text as Markdown that shows it literally (GitHub renders HTML in summaries: escape that too), and
    as :func:`github_text` makes it (no ``::`` or ``##[``, though a summary is no log)."""
    text = github_text(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", text)


def github_summary(
    results: Results, opts: Options = DEFAULT_OPTIONS, link: Callable[[str, int], str] | None = None
) -> str:
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
            body.append(f"- **{p.severity}** {where} `{p.rule}` ({p.code}): {_md(sentence(p))}")
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
