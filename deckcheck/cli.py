"""The ``deckcheck`` command line: check decklists in CI, format them, look cards up.

Exit codes live on exception classes, as in click: 0 every deck passed, 1 at
least one failed, 2 a usage error (click's ``UsageError``), 3 the card
database (or the shipped format data) is missing or unreadable.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import stat
import sys
import tempfile
from pathlib import Path

import click

from . import cards as _cards
from . import config as _config
from . import github_env as _github_env
from . import parse as _parse
from . import walk as _walk
from .cards import CardDB, DatabaseError, default_path
from .engine import check as _check
from .formats import Format, FormatError, default_formats
from .parse import parse
from .problems import Counts, Problem, Report
from .render import OUTPUT_FORMATS, Options, fails, ptcgl_export, render
from .sync import build as _build

#: the API's limits on one decklist (MAX_DECKLIST_BYTES, MAX_DECKLIST_LINES)
MAX_BYTES = _parse.MAX_DECKLIST_BYTES
MAX_LINES = _parse.MAX_DECKLIST_LINES
#: a progress bar only for runs longer than this many files, and only on a terminal
PROGRESS_MIN_FILES = 20
STDIN = "-"
STDIN_LABEL = "<stdin>"
# "SVI 181" or "Nest Ball SVI 181" in `deckcheck cards`
_PRINTING = re.compile(
    r"(?:(?P<name>.+?)\s+)?(?P<set>[A-Za-z][A-Za-z0-9-]{1,7})\s+"
    r"(?P<number>[A-Za-z]{0,5}\d{1,4}[A-Za-z]?)"
)


class DatabaseMissing(click.ClickException):
    """The card database (or the format data shipped beside it) cannot be read: exit code 3."""

    exit_code = 3


# -- shared helpers ------------------------------------------------------------


def _formats() -> dict[str, Format]:
    try:
        return default_formats()
    except FormatError as exc:
        raise DatabaseMissing(f"the format definitions cannot be loaded: {exc}") from exc


def _database() -> CardDB:
    """The process-wide database, unless ``DECKCHECK_DB`` now names another file."""
    try:
        db = _cards.get_db()
        return db if db.path == str(default_path()) else _cards.load()
    except DatabaseError as exc:
        raise DatabaseMissing(str(exc)) from exc


def _format_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    known = _formats()
    if value.lower() not in known:
        raise click.BadParameter(f"unknown format {value!r} (known: {', '.join(sorted(known))})")
    return value.lower()


def _date_option(ctx: click.Context, param: click.Parameter, value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return _config.parse_date(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None


def _shown(path: str) -> str:
    """A path as reports show it: relative to the working directory when below it, with ``/``."""
    if path == STDIN:
        return STDIN_LABEL
    rel = os.path.relpath(path)
    return (os.path.abspath(path) if rel == ".." or rel.startswith(".." + os.sep) else rel).replace(os.sep, "/")


def _read(path: str) -> tuple[str | None, Problem | None]:
    """The file's text, or the problem that kept it from being read (binary, not UTF-8, too large)."""
    try:
        if path == STDIN:
            blob = click.get_binary_stream("stdin").read(MAX_BYTES + 1)
        else:
            # O_NONBLOCK: a FIFO swapped in after the walk must not hang the run; only regular files are read
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with open(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    return None, Problem("unreadable-file", "The path is not a regular file; it was not read.")
                blob = fh.read(MAX_BYTES + 1)
    except OSError as exc:
        return None, Problem("unreadable-file", f"The file could not be read: {exc.strerror or exc}.")
    if len(blob) > MAX_BYTES:
        return None, Problem(
            "input-limit",
            f"The file is larger than {MAX_BYTES // 1024} KiB, the most a decklist may be; it was not checked.",
        )
    if b"\0" in blob:
        return None, Problem(
            "unreadable-file", "The file is binary (it contains NUL bytes), not a text decklist; it was not checked."
        )
    try:
        text = blob.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, Problem(
            "unreadable-file",
            f"The file is not UTF-8 text (byte 0x{blob[exc.start]:02x} at "
            f"offset {exc.start}); save it as UTF-8 to have it checked.",
        )
    lines, unit = _parse.measure_lines(text)
    if lines > MAX_LINES:
        return None, Problem(
            "input-limit",
            f"The file has {_parse.over_line_limit(lines, unit)}; a decklist "
            f"may have at most {MAX_LINES:,}, so it was not checked.",
        )
    return text, None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="deckcheck")
def cli() -> None:
    """Validate Pokémon TCG decklists."""


# -- check -----------------------------------------------------------------------


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
) -> Report:
    """Command-line options win over the file's overrides, which win over its defaults."""
    path = found.path
    cfg_format, cfg_as_of = cfg.settings_for(None if path == STDIN else path)
    fmt = _formats()[format_ or cfg_format or "standard"]
    on = as_of or cfg_as_of or dt.date.today()
    text, problem = (None, found.problem) if found.problem else _read(path)
    if problem is not None:
        return _unchecked(problem, fmt, on, db)
    return _check(text, fmt, on, db=db, max_db_age=max_db_age, forecast=forecast)


def show_progress(count: int, quiet: bool, stream) -> bool:
    """A progress bar only for a long run on a terminal: never when piped or quiet."""
    return not quiet and count > PROGRESS_MIN_FILES and stream.isatty()


@contextlib.contextmanager
def _progress(items: list[str], quiet: bool):
    err = click.get_text_stream("stderr")
    if not show_progress(len(items), quiet, err):
        yield items
        return
    with click.progressbar(items, label="Checking decklists", file=err) as bar:
        yield bar


def _colour(no_color: bool) -> bool:
    """--no-color and NO_COLOR win; FORCE_COLOR (any non-empty value) colours a pipe; else a terminal only."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    return bool(os.environ.get("FORCE_COLOR")) or click.get_text_stream("stdout").isatty()


def _report_option(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> list[tuple[str, str]]:
    out = []
    for item in value:
        fmt, sep, path = item.partition("=")
        if not sep or fmt not in OUTPUT_FORMATS or not path:
            raise click.BadParameter(f"{item!r} is not FORMAT=FILE with FORMAT one of {', '.join(OUTPUT_FORMATS)}")
        out.append((fmt, path))
    return out


def _listed(path: str | None) -> set[str] | None:
    """The absolute paths listed in a file, one a line (``git diff --name-only``), or None without one."""
    if path is None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return {os.path.abspath(line.strip()) for line in fh if line.strip()}
    except (OSError, UnicodeDecodeError) as exc:
        raise click.BadParameter(f"cannot read {path}: {exc}", param_hint="'--changed-files'") from None


@cli.command("check")
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
@click.option("-q", "--quiet", is_flag=True, help="Print the problems only: no summary line, no progress bar.")
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
@click.pass_context
def check_cmd(
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
) -> None:
    """Check decklists: files, folders (searched for *.txt and *.json as git sees them:
    .gitignore honoured), quoted globs, or - for stdin.

    Exit status: 0 every deck passed, 1 at least one deck failed, 2 usage
    error, 3 card database missing or unreadable.
    """
    cfg = _settings(config_path)
    db = _database()
    collector = _walk.Collector(cfg)
    try:
        files = collector.collect(paths or (".",))
    except _walk.PathError as exc:
        raise click.BadParameter(str(exc), param_hint="'[PATHS]...'") from None
    changed = _listed(changed_files)
    if changed is not None:
        files = [f for f in files if os.path.abspath(f.path) in changed]
    if not files:
        click.echo(
            "warning: no "
            + ("changed " if changed is not None else "")
            + "decklists found (looked for "
            + ", ".join(p.glob for p in cfg.include)
            + ")",
            err=True,
        )
    fail_on = fail_on or cfg.fail_on or "error"
    max_age = max_db_age if max_db_age is not None else cfg.max_db_age
    with _progress(files, quiet) as items:
        results = [
            (_shown(found.path), _check_one(found, cfg, format_, as_of, db, max_age, forecast)) for found in items
        ]
    if collector.covers_config and changed is None:
        for warning in cfg.unused():
            click.echo(f"warning: {warning}", err=True)
    colour = output_format == "text" and _colour(no_color)
    click.echo(render(output_format, results, Options(fail_on, not quiet, colour)), nl=False, color=colour)
    for fmt, target in reports:
        try:
            with open(target, "w", encoding="utf-8") as fh:
                fh.write(render(fmt, results, Options(fail_on)))
        except OSError as exc:
            raise click.FileError(target, exc.strerror or str(exc)) from None
    if output_format == "github":
        for warning in _github_env.write(results, fail_on):
            click.echo(warning, err=True)
    failed = any(fails(report, fail_on) for _, report in results)
    ctx.exit(1 if failed and not exit_zero else 0)


# -- fmt -------------------------------------------------------------------------


def _write_atomically(path: str, text: str) -> None:
    """Replace the file in one step (a temporary file beside it, then rename), keeping its mode."""
    target = Path(os.path.realpath(path))
    mode = stat.S_IMODE(target.stat().st_mode)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@cli.command("fmt")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("-w", "--write", is_flag=True, help="Rewrite FILE in place (atomically) instead of printing it.")
def fmt_cmd(file: str, write: bool) -> None:
    """Print FILE as a clean Pokémon TCG Live export.

    Names and set codes as resolved, duplicate lines of one printing merged,
    section headers with line counts and Total Cards. Lines that are not cards
    are left out (with a warning); --write refuses to drop them.
    """
    if write and file == STDIN:
        raise click.BadParameter("--write needs a file, not -", param_hint="FILE")
    shown = _shown(file)
    db = _database()
    text, problem = _read(file)
    if problem is not None:
        raise click.ClickException(f"{shown}: {problem.message}")
    parsed = parse(text)
    if write and parsed.source == "json":
        raise click.UsageError(
            f"{shown} is a JSON deck; --write only rewrites text lists (run fmt without --write to convert it)."
        )
    report = _check(parsed, "unlimited", db=db)  # resolution does not depend on the format
    out = ptcgl_export(report)
    for p in sorted(report.problems, key=lambda p: p.line or 0):
        if p.rule == "unknown-set":
            code = next((ln.set_code for ln in report.lines if ln.line == p.line), "")
            click.echo(
                f"warning: {shown}: line {p.line} kept as written (the card database knows no set {code}; "
                "deckcheck db sync updates it).",
                err=True,
            )
    dropped = sorted({n for p in parsed.problems for n in p.lines})
    if dropped:
        which = f"line{'s' if len(dropped) > 1 else ''} {', '.join(map(str, dropped))}"
        if write:
            raise click.ClickException(
                f"{shown}: {which} would be lost (not card lines); nothing was written. Fix or remove them first."
            )
        click.echo(f"warning: {shown}: {which} left out (not card lines).", err=True)
    if not write:
        click.echo(out, nl=False)
        return
    if "\r\n" in text:
        out = out.replace("\n", "\r\n")  # keep the file's line endings
    if out == text:
        click.echo(f"{shown}: already formatted.", err=True)
        return
    _write_atomically(file, out)
    click.echo(f"{shown}: reformatted.", err=True)


# -- cards -----------------------------------------------------------------------


def _legality(fmt: Format, card: _cards.Card, db: CardDB, on: dt.date) -> dict:
    if on < fmt.pool.earliest:
        return {"legal": None, "banned": False, "legal_via": None}
    via, ban = fmt.legality(card, db, on)
    return {
        "legal": via is not None and ban is None,
        "banned": ban is not None,
        "legal_via": f"{via.set_code} {via.number}" if via is not None and via is not card else None,
    }


def _legality_word(entry: dict) -> str:
    if entry["banned"]:
        return "banned"
    if entry["legal"] is None:
        return "unknown"
    if not entry["legal"]:
        return "not legal"
    return f"legal (as {entry['legal_via']})" if entry["legal_via"] else "legal"


def _lookup(db: CardDB, query: str, limit: int) -> list[_cards.Card]:
    """``SVI 181`` (or ``Nest Ball SVI 181``) is one printing; anything else searches names."""
    m = _PRINTING.fullmatch(query)
    hit = db.find(m["set"], m["number"]) if m else None
    return [hit] if hit else db.search(query, limit=limit)


@cli.command("cards")
@click.argument("query", nargs=-1, required=True)
@click.option("--as-of", metavar="YYYY-MM-DD", callback=_date_option, help="Legality on this date (default: today).")
@click.option("-n", "--limit", type=click.IntRange(1, 200), default=10, show_default=True, help="Most cards to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: each card with its legality per format.")
@click.pass_context
def cards_cmd(ctx: click.Context, query: tuple[str, ...], as_of, limit: int, as_json: bool) -> None:
    """Look cards up by name or by set code and number (SVI 181).

    Shows each printing's set, number, regulation mark and type, and whether
    it is legal in every format on the date. Exits 1 when nothing matches.
    """
    db, formats = _database(), _formats()
    text, on = " ".join(query).strip(), as_of or dt.date.today()
    found = _lookup(db, text, limit)
    if not found:
        click.echo(f"No card matches {text!r}.", err=True)
        ctx.exit(1)
    rows = [(card, {fid: _legality(f, card, db, on) for fid, f in formats.items()}) for card in found]
    if as_json:
        docs = [{**card.to_dict(), "legality": legality} for card, legality in rows]
        click.echo(json.dumps({"as_of": on.isoformat(), "cards": docs}, ensure_ascii=False, indent=2))
        return
    click.echo(f"Legality on {on.isoformat()}:")
    for card, legality in rows:
        kind = " ".join((card.supertype, *[s for s in card.subtypes if s != card.supertype]))
        click.echo(f"{card.label}  {kind}  mark {card.mark or '-'}")
        click.echo("    " + "  ".join(f"{fid}: {_legality_word(e)}" for fid, e in legality.items()))


# -- db --------------------------------------------------------------------------


class _LazyGroup(click.Group):
    """A group whose commands in ``lazy`` (name -> "module:attribute") are imported when first used:
    ``db sync``, ``db publish`` and ``db pull`` bring requests (and marshmallow), which ``deckcheck check`` and
    ``--version`` never need."""

    def __init__(self, *args, lazy: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        self.lazy = lazy

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name not in self.commands:
            import importlib

            module, attribute = self.lazy[name].split(":")
            self.add_command(getattr(importlib.import_module(module, __package__), attribute), name)
        return super().get_command(ctx, name)


@cli.group(
    cls=_LazyGroup,
    lazy={
        "sync": ".sync.command:sync_command",
        "publish": ".sync.command:publish_command",
        "pull": ".sync.command:pull_command",
    },
)
def db() -> None:
    """Build and inspect the card database."""


@db.command("build")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Merged card catalogue (cards.json.gz).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where to write the database (default: the service's database path).",
)
def db_build(source: str, output: str | None) -> None:
    """Build the shipped card database from a merged catalogue."""
    try:
        db_dict = _build.build(_build.load_source(source))
    except _build.BuildError as exc:
        raise DatabaseMissing(str(exc)) from exc
    target = output or str(default_path())
    _build.write_database(db_dict, target)
    meta = db_dict["meta"]
    click.echo(f"Wrote {target}: {meta['cards']} cards in {meta['sets']} sets.")


@db.command("splits")
@click.option(
    "--from",
    "source",
    required=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Merged card catalogue (cards.json.gz).",
)
def db_splits(source: str) -> None:
    """List every card whose printings carry more than one text, with its verdicts.

    Each numbered group is one card as data/reprint-groups.csv decides it; a split with
    UNDECIDED pairs needs a row before the database builds.
    """
    lines: list[str] = []
    try:
        _build.build(_build.load_source(source), splits=lines)
    except _build.BuildError as exc:
        raise DatabaseMissing(str(exc)) from exc
    for line in lines:
        click.echo(line)
    undecided = sum(1 for line in lines if line.endswith("UNDECIDED"))
    click.echo(f"{sum(1 for line in lines if not line.startswith(' '))} splits, {undecided} with undecided pairs.")
    if undecided:
        raise SystemExit(1)


@db.command("status")
@click.option("--json", "as_json", is_flag=True, help="The facts as JSON (the report's database object).")
@click.option(
    "--as-of",
    metavar="YYYY-MM-DD",
    callback=_date_option,
    help="Say how old the newest set is on this date (default: today).",
)
def db_status(as_json: bool, as_of: dt.date | None) -> None:
    """Which card database is in use, when it was built, from what, and its newest set."""
    db = _database()
    info = db.info()
    info["path"] = db.path
    on = as_of or dt.date.today()
    info["age_days"] = db.age_days(on)
    if as_json:
        click.echo(json.dumps(info, ensure_ascii=False, indent=2))
        return
    for line in status_lines(info, on):
        click.echo(line)


def status_lines(info: dict, on: dt.date) -> list[str]:
    """``deckcheck db status`` in text: the file, version, build time, sources, size, newest set."""
    newest = info.get("newest_set")
    sources = info.get("sources") or {}
    if newest:
        age = info.get("age_days")
        when = f", {age} days before {on.isoformat()}" if age is not None and age >= 0 else ""
        newest_line = f"{newest['name']} ({newest.get('code') or newest['id']}), released {newest['release']}{when}"
    else:
        newest_line = "none (the database has no dated set with cards)"
    return [
        f"File:       {info.get('path') or '-'}",
        f"Version:    {info['version']}",
        f"Built:      {info.get('built_at') or 'unknown'}",
        "Sources:    " + (", ".join(f"{k} {v or '-'}" for k, v in sources.items()) or "unknown"),
        f"Cards:      {info['cards']} in {info['sets']} sets",
        f"Newest set: {newest_line}",
        "Update:     deckcheck db sync (or a newer release of deckcheck)",
    ]


from .serve import serve  # noqa: E402

cli.add_command(serve)


def main(argv: list[str] | None = None) -> int:
    try:
        return cli.main(args=argv, prog_name="deckcheck", standalone_mode=True) or 0
    except DatabaseError as exc:  # pragma: no cover - surfaced by commands
        click.echo(f"Error: {exc}", err=True)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
