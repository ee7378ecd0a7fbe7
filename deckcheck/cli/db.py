"""``deckcheck db``: build and inspect the card database (``db sync``, ``publish`` and ``pull`` load lazily)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import click

from ..cards import default_path
from ..sync import build as _build
from ..sync import write as _write
from .common import DatabaseMissing, _database, _date_option
from .lazy import LazyGroup


@click.group(
    cls=LazyGroup,
    lazy={
        "sync": ".cli.dbsync:sync_command",
        "publish": ".cli.dbsync:publish_command",
        "pull": ".cli.dbsync:pull_command",
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
@click.option(
    "--names-i18n",
    "names_i18n",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="Card and set names in other languages (names-i18n.json.gz, from TCGdex): written beside the "
    "database as names-i18n.json.gz, with the sets' codes in other languages on their records.",
)
def db_build(source: str, output: str | None, names_i18n: str | None) -> None:
    """Build the shipped card database from a merged catalogue."""
    from ..cards.localnames import NAMES_FILE
    from ..sync import localnames as _local

    target = output or str(default_path())
    try:
        catalogue = _build.load_source(source)
        local = _local.load(names_i18n) if names_i18n else None
        codes = _local.local_codes(local, catalogue["sets"]) if local is not None else None
        db_dict = _build.build(catalogue, local_codes=codes)
        releases = {s["id"]: s.get("release") or "" for s in db_dict["sets"]}
        names = _local.encode(_local.table(local, db_dict["cards"], releases)) if local is not None else None
        _write.write_database(db_dict, target)  # rows a load or the pack would refuse: nothing written
        if names is not None:
            _write.write_atomically(names, Path(target).with_name(NAMES_FILE))
    except _build.BuildError as exc:
        raise DatabaseMissing(str(exc)) from exc
    meta = db_dict["meta"]
    click.echo(f"Wrote {target}: {meta['cards']} cards in {meta['sets']} sets.")
    if names is not None:
        click.echo(f"Wrote {Path(target).with_name(NAMES_FILE)}: card names in other languages ({len(names):,} bytes).")


@db.command("pack")
@click.option(
    "--db",
    "database",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The database file (default: the one in use, $DECKCHECK_DB or the shipped one).",
)
def db_pack(database: str | None) -> None:
    """Write the pack beside a database file (<file>.pack), so it loads without parsing it.

    db build, db sync and db pull write it themselves; this is for a database of your own
    ($DECKCHECK_DB) or one copied into place. The file is checked as a load checks it first.
    """
    from ..cards.pack import pack_path

    path = database or str(default_path())
    try:
        _write.write_pack(path)
    except _build.BuildError as exc:
        raise DatabaseMissing(str(exc)) from exc
    click.echo(f"Wrote {pack_path(path)} for {path}.")


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
