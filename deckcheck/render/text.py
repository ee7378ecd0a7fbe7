"""The ``text`` output format: one problem a line, ``path:line: rule message``, for people at a terminal."""

from __future__ import annotations

from ..problems import ERROR, INFO, WARNING
from .commandsafe import github_text, one_line
from .results import DEFAULT_OPTIONS, Options, Results, sentence, shown_problems, summary_line

#: ANSI colour codes of the text output, by severity: red, yellow, cyan
_COLOUR = {ERROR: 31, WARNING: 33, INFO: 36}


def _ansi(text: str, fg: int | None = None, bold: bool | None = None) -> str:
    """``text`` in an ANSI colour (a code from :data:`_COLOUR`) and bold or not, then a reset: the
    bytes ``click.style(text, fg=..., bold=...)`` writes, without click in the core."""
    start = (f"\033[{fg}m" if fg is not None else "") + ("" if bold is None else f"\033[{1 if bold else 22}m")
    return f"{start}{text}\033[0m"


def render_text(results: Results, opts: Options = DEFAULT_OPTIONS) -> str:
    """One problem a line, ``path:line: rule message``, in line order; then a summary.

    A problem about the whole deck (deck-size, no-basic-pokemon) has no line:
    ``path: rule message``. Warnings and info say so after the rule name.
    """

    def style(text: str, fg: int | None = None, bold: bool | None = None) -> str:
        return _ansi(text, fg, bold) if opts.color else text

    shown = github_text if opts.command_safe else one_line
    out = []
    for path, report in results:
        for p in sorted(shown_problems(report, opts), key=lambda p: p.line or 0):
            where = shown(f"{path}:{p.line}:" if p.line else f"{path}:")
            rule = style(p.rule, fg=_COLOUR[p.severity], bold=p.severity == ERROR)
            level = "" if p.severity == ERROR else f" ({p.severity})"
            out.append(f"{style(where, bold=True)} {rule}{level} {shown(sentence(p))}")
    if opts.summary:
        out.append(style(summary_line(results, opts.fail_on), bold=True))
    return "".join(line + "\n" for line in out)
