"""``deckcheck check``: check decklists (files, folders, globs, stdin) in CI and print the reports."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import click

from ..cards import CardDB
from ..decklist.jsondeck import looks_like_json
from ..engine import check as _check
from ..formats import Format
from ..problems import Counts, Problem, Report
from ..render import OUTPUT_FORMATS, Options, fails, github_text, render
from ..wording import plural
from . import github_env as _github_env
from . import repoconfig as _config
from . import walk as _walk
from .common import STDIN, _database, _date_option, _format_option, _formats, _read, _shown

#: a progress bar only for runs longer than this many files, and only on a terminal
PROGRESS_MIN_FILES = 20


def _settings(config_path: str | None) -> _config.Config:
    known = _formats()
    try:
        if config_path:
            return _config.load(config_path, known)
        return _config.discover(os.getcwd(), known)
    except _config.ConfigError as exc:
        raise click.UsageError(str(exc)) from exc


def _unchecked(problem: Problem, fmt: Format, on: dt.date, db: CardDB) -> Report:
    """The report on a file that could not be read: its one problem, no cards."""
    return Report(
        format=fmt.id,
        format_name=fmt.name,
        as_of=on.isoformat(),
        problems=[problem],
        lines=[],
        counts=Counts(),
        database=db.info(),
    )


def _check_one(
    found: _walk.Found,
    cfg: _config.Config,
    format_: str | None,
    as_of: dt.date | None,
    db: CardDB,
    max_db_age: int | None = None,
    forecast: bool = False,
    skip_prose: bool = False,
) -> Report | None:
    """Command-line options win over the file's overrides, which win over its defaults.

    None for a file that holds no card line when ``skip_prose`` (or a folder's walk found it): prose
    beside the decks, such as a ``decks/README.txt``, is not a deck (:func:`_not_a_deck`). A file that
    cannot be read is always reported.
    """
    path = found.path
    cfg_format, cfg_as_of = cfg.settings_for(None if path == STDIN else path)
    fmt = _formats()[format_ or cfg_format or "standard"]
    on = as_of or cfg_as_of or dt.date.today()
    text, problem = (None, found.problem) if found.problem else _read(path)
    if problem is not None:
        return _unchecked(problem, fmt, on, db)
    assert text is not None  # _read gives the text or the problem
    report = _check(text, fmt, on, db=db, max_db_age=max_db_age, forecast=forecast)
    if (skip_prose or found.in_folder) and path != STDIN and not report.lines and _not_a_deck(text, report):
        return None
    return report


def _not_a_deck(text: str, report: Report) -> bool:
    """Is a file with no card line something other than a deck: prose, or JSON of no deck's shape (a
    settings file)? JSON that does not parse, or a deck's shape whose entries are all wrong, is a broken
    deck: it is reported, never skipped."""
    if not looks_like_json(text.lstrip("\ufeff")):
        return True
    return any(p.rule == "json-shape" for p in report.problems)


def show_progress(count: int, quiet: bool, stream) -> bool:
    """A progress bar only for a long run on a terminal: never when piped or quiet."""
    return not quiet and count > PROGRESS_MIN_FILES and stream.isatty()


@contextlib.contextmanager
def _progress(items: list[_walk.Found], quiet: bool) -> Iterator[Iterable[_walk.Found]]:
    err = sys.stderr
    if not show_progress(len(items), quiet, err):
        yield items
        return
    with click.progressbar(items, label="Checking decklists", file=err) as bar:
        yield bar


def _command_safe(output_format: str) -> bool:
    """Must what this run prints be safe from the Actions runner, which acts on ``::`` and ``##[`` in a
    log line? In ``github`` format, and in any format inside GitHub Actions (``GITHUB_ACTIONS=true``)."""
    return output_format == "github" or os.environ.get("GITHUB_ACTIONS") == "true"


def _colour(no_color: bool) -> bool:
    """--no-color and NO_COLOR win; FORCE_COLOR (any non-empty value) colours a pipe; else a terminal only."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or sys.stdout.isatty()


def _report_option(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for item in value:
        fmt, sep, path = item.partition("=")
        if not sep or fmt not in OUTPUT_FORMATS or not path:
            raise click.BadParameter(f"{item!r} is not FORMAT=FILE with FORMAT one of {', '.join(OUTPUT_FORMATS)}")
        out.append((fmt, path))
    return out


def _holds_changed(found: _walk.Found, changed: set[str]) -> bool:
    """Is ``found`` a folder that could not be entered (``unreachable-path``) with a changed file below it?
    Then the change is reported through it rather than dropped."""
    if found.problem is None or found.problem.rule != "unreachable-path":
        return False
    below = os.path.join(os.path.abspath(found.path), "")
    return any(path.startswith(below) for path in changed)


def _listed(path: str | None) -> set[str] | None:
    """The absolute paths listed in a file, one a line (``git diff --name-only``), or None without one."""
    if path is None:
        return None
    try:
        # a name that is not UTF-8 (git diff -c core.quotePath=false writes its bytes) reads as the walk found it
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            return {os.path.abspath(line.rstrip("\r\n")) for line in fh if line.strip()}
    except OSError as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}", param_hint="'--changed-files'") from None


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
@click.option(
    "--format",
    "format_",
    metavar="FORMAT",
    callback=_format_option,
    help="Format for every deck (default: the configuration's, else standard).",
)
@click.option(
    "--as-of",
    metavar="YYYY-MM-DD",
    callback=_date_option,
    help="Check legality on this date (default: the configuration's, else today).",
)
@click.option(
    "--output-format",
    type=click.Choice(OUTPUT_FORMATS),
    default="text",
    show_default=True,
    help="text for people; json (one array), jsonl (a report a line), github (annotations and "
    "$GITHUB_STEP_SUMMARY), sarif or junit for tools.",
)
@click.option(
    "--fail-on",
    type=click.Choice(_config.FAIL_ON),
    default=None,
    help="Lowest severity that fails a deck (default: the configuration's, else error).",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when decks fail.")
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print only the problems that fail a deck under --fail-on (text and github): no info, no summary "
    "line, no notes, no progress bar.",
)
@click.option(
    "--no-color",
    is_flag=True,
    help="No colours in text output (also when NO_COLOR is set; FORCE_COLOR colours a pipe).",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(exists=True, dir_okay=False),
    help="Settings file to use instead of looking for deckcheck.toml or pyproject.toml.",
)
@click.option(
    "--max-db-age",
    type=click.IntRange(min=0),
    metavar="DAYS",
    default=None,
    help="Warn (stale-database) when the card database's newest set is more than DAYS days older "
    "than the check's date (default: the configuration's, else no limit).",
)
@click.option(
    "--report",
    "reports",
    metavar="FORMAT=FILE",
    multiple=True,
    callback=_report_option,
    help="Also write the run in another output format to FILE (repeatable), e.g. sarif=deckcheck.sarif.",
)
@click.option(
    "--forecast",
    is_flag=True,
    help="Also forecast the next Standard rotation: rotation-forecast warnings for the cards it would make "
    "illegal, info for the cards a reprint keeps legal.",
)
@click.option(
    "--changed-files",
    metavar="FILE",
    default=None,
    help="Check only the decks PATHS select that FILE lists (one path a line, e.g. git diff --name-only).",
)
@click.option(
    "--skip-non-decks",
    is_flag=True,
    help="Skip a named file that holds no card line, as one found in a folder is (for hooks that name "
    "every changed file).",
)
@click.pass_context
def check_cmd(ctx: click.Context, **options: Any) -> None:
    """Check decklists: files, folders (searched for *.txt and *.json as git sees them:
    .gitignore honoured), quoted globs, or - for stdin.

    Exit status: 0 every deck passed, 1 at least one deck failed, 2 usage
    error, 3 card database missing or unreadable.
    """
    try:
        _run(ctx, **options)
    except click.UsageError as exc:
        if not _command_safe(options["output_format"]):
            raise
        # a path or a glob of the repository's (a broken configuration, a missing path) in the message:
        # never a workflow command. (The other errors name only what the workflow itself gave.)
        raise click.UsageError(github_text(exc.format_message()), exc.ctx) from None


def _run(
    ctx: click.Context,
    paths,
    format_,
    as_of,
    output_format,
    fail_on,
    exit_zero,
    quiet,
    no_color,
    config_path,
    max_db_age,
    reports,
    forecast,
    changed_files,
    skip_non_decks,
) -> None:
    github, safe = output_format == "github", _command_safe(output_format)

    def note(text: str) -> None:
        """A line on stderr, one no runner reads as a command where that matters (:func:`_command_safe`)."""
        click.echo(github_text(text) if safe else text, err=True)

    cfg = _settings(config_path)
    db = _database()
    collector = _walk.Collector(cfg)
    try:
        files = collector.collect(paths or (".",))
    except _walk.PathError as exc:
        raise click.BadParameter(str(exc), param_hint="'[PATHS]...'") from None
    changed = _listed(changed_files)
    if changed is not None:
        files = [f for f in files if os.path.abspath(f.path) in changed or _holds_changed(f, changed)]
    if not files:
        note(
            "warning: no "
            + ("changed " if changed is not None else "")
            + "decklists found (looked for "
            + ", ".join(p.glob for p in cfg.include)
            + ")"
        )
    fail_on = fail_on or cfg.fail_on or "error"
    max_age = max_db_age if max_db_age is not None else cfg.max_db_age
    results, prose = [], []
    with _progress(files, quiet) as items:
        for found in items:
            report = _check_one(found, cfg, format_, as_of, db, max_age, forecast, skip_non_decks)
            if report is None:
                prose.append(_shown(found.path))
            else:
                results.append((_shown(found.path), report))
    if prose and not quiet:
        note(
            f"note: skipped {plural(len(prose), 'file')} with no card line, not decklists "
            f"(name one on the command line to check it): {', '.join(prose)}"
        )
    if collector.covers_config and changed is None:
        for warning in cfg.unused():
            note(f"warning: {warning}")
    colour = output_format == "text" and _colour(no_color)
    opts = Options(fail_on, not quiet, colour, only_failing=quiet, command_safe=safe)
    click.echo(render(output_format, results, opts), nl=False, color=colour)
    for fmt, target in reports:
        try:
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(render(fmt, results, Options(fail_on)))
        except OSError as exc:
            raise click.FileError(target, exc.strerror or str(exc)) from None
    if github:
        for warning in _github_env.write(results, fail_on):
            note(warning)
    failed = any(fails(report, fail_on) for _, report in results)
    ctx.exit(1 if failed and not exit_zero else 0)
