"""A run's results and what every output shares: the options a renderer may be asked, which decks and
problems fail the run, and the one-line summary."""

from __future__ import annotations

from collections.abc import Sequence

from ..problems import ERROR, INFO, WARNING, Problem, Report
from ..wording import plural

#: a run's results: (path, report) for each deck
Results = Sequence[tuple[str, Report]]


class Options:
    """What a renderer may be asked besides the results.

    :param fail_on: ``error`` or ``warning``: the lowest severity that fails a deck.
    :param summary: end human-facing output with a one-line summary.
    :param color: style text output with ANSI colours.
    :param only_failing: the people's formats (``text``, ``github``) show only the problems that fail a
        deck under ``fail_on`` (``-q``); the tools' formats always carry every problem.
    :param command_safe: text output inside GitHub Actions, whose runner reads a log line's ``::`` and
        ``##[`` as a command: user text as :func:`deckcheck.render.commandsafe.github_safe` makes it (the
        ``github`` format always is).
    """

    __slots__ = ("fail_on", "summary", "color", "only_failing", "command_safe")

    def __init__(
        self,
        fail_on: str = ERROR,
        summary: bool = True,
        color: bool = False,
        only_failing: bool = False,
        command_safe: bool = False,
    ) -> None:
        self.fail_on = fail_on
        self.summary = summary
        self.color = color
        self.only_failing = only_failing
        self.command_safe = command_safe

    def __repr__(self) -> str:
        return (
            f"Options(fail_on={self.fail_on!r}, summary={self.summary!r}, color={self.color!r}, "
            f"only_failing={self.only_failing!r}, command_safe={self.command_safe!r})"
        )


#: the options a renderer takes when it is given none (shared: a renderer never changes its options)
DEFAULT_OPTIONS = Options()


def fails(report: Report, fail_on: str = ERROR) -> bool:
    """Does this deck fail the run? Errors always do; warnings too with ``fail_on="warning"``."""
    return not report.valid or (fail_on == WARNING and bool(report.warnings))


def failing(problem: Problem, fail_on: str = ERROR) -> bool:
    """Does this problem fail its deck under ``fail_on``? (an error always; a warning with ``warning``)"""
    return problem.severity == ERROR or (fail_on == WARNING and problem.severity == WARNING)


def shown_problems(report: Report, opts: Options) -> list[Problem]:
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


def sentence(problem: Problem) -> str:
    """A problem's message and its hint, as one text."""
    return f"{problem.message} {problem.hint}" if problem.hint else problem.message
