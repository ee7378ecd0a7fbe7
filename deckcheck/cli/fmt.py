"""``deckcheck fmt``: print (or rewrite) a decklist as a clean Pokémon TCG Live export."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

import click

from ..decklist.parse import parse
from ..engine import check as _check
from ..render import ptcgl_export
from ..wording import noun
from .common import STDIN, _database, _read, _shown


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


@click.command("fmt")
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
    assert text is not None  # _read gives the text or the problem
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
        which = f"{noun(len(dropped), 'line')} {', '.join(map(str, dropped))}"
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
