"""``deckcheck db sync``: keep the card database current from the TCGdex REST API.

One run:

1. downloads and validates the English catalogue (:mod:`deckcheck.sync.tcgdex`);
2. maps the records to the merged-catalogue shape that ``db build`` reads and builds the
   database from it (:mod:`deckcheck.sync.mapping`);
3. writes the result beside the target, loads it back with :func:`deckcheck.cards.load` and
   its own checks (:mod:`deckcheck.sync.checks`), compares it with the current database and
   only then renames it over the current file. It refuses when the new database has more than
   5 % fewer cards or loses a set, unless ``force``; a file that fails its own checks is never
   installed.

Nothing here exits the process: :func:`sync` returns a :class:`SyncResult` (refused or not) or
raises :class:`~deckcheck.sync.tcgdex.SyncError`; :mod:`deckcheck.cli.dbsync` turns them
into exit codes (0 written, unchanged or dry run; 1 refused, the current file is kept; 4 the
catalogue could not be downloaded completely, nothing written, cached payloads are kept, so
running again resumes).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import cards as _cards
from ..cards import CardDB
from ..cards.files import database_json
from ..cards.pack import pack_path
from .checks import Summary, compare, listing, safety_checks, self_checks, summary_lines
from .fetch import SYNC_DEADLINE
from .mapping import PTCGIO_ONLY_PREFIX, build_database
from .tables import BuildError
from .tcgdex import (
    DEFAULT_API_URL,
    EXIT_REFUSED,
    Cache,
    Catalogue,
    SkippedRecord,
    TcgdexClient,
    default_cache_dir,
    download,
)
from .write import write_database


@dataclass
class SyncResult:
    status: str  # written | unchanged | dry-run | refused
    output: Path
    lines: list[str]
    problems: list[SkippedRecord]
    summary: Summary | None = None
    version: str | None = None
    previous_version: str | None = None

    @property
    def exit_code(self) -> int:
        return EXIT_REFUSED if self.status == "refused" else 0


def sync(
    api_url: str = DEFAULT_API_URL,
    output: str | os.PathLike | None = None,
    *,
    base: str | os.PathLike | None = None,
    dry_run: bool = False,
    force: bool = False,
    refresh: bool = False,
    cache_dir: str | os.PathLike | None = None,
    max_age: float = 12 * 3600,
    workers: int = 4,
    timeout: float = 30.0,
    connect_timeout: float = 5.0,
    retries: int = 5,
    backoff: float = 0.5,
    deadline: float = SYNC_DEADLINE,
    allow_hosts: tuple[str, ...] = (),
    progress: bool = True,
    today: dt.date | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> SyncResult:
    """Download, build, check and (unless refused or ``dry_run``) install a new database; the
    download ends within ``deadline`` seconds (:mod:`deckcheck.sync.fetch`).

    :raises FetchError: the catalogue could not be downloaded completely (nothing written).
    :raises SyncError: the set list is unusable (nothing written).
    """
    target = Path(output) if output else _cards.default_path()
    previous, previous_raw, unreadable, pack_unused = _read_previous(Path(base) if base else target)
    cache = Cache(Path(cache_dir) if cache_dir else default_cache_dir(), max_age)
    client = TcgdexClient(
        api_url,
        timeout=(connect_timeout, timeout),
        retries=retries,
        backoff=backoff,
        workers=workers,
        deadline=deadline,
        allow_hosts=allow_hosts,
    )
    try:
        catalogue = download(client, cache, workers=workers, refresh=refresh, progress=progress)
    finally:
        client.close()
    run = _Run(target, echo, previous, catalogue)
    if unreadable:
        run.say(f"Warning: the current database is unreadable ({unreadable}); nothing to compare with.")
    if pack_unused:
        run.say(f"Warning: the current database was read without its pack ({pack_unused}).")
    for line in _download_lines(catalogue, api_url):
        run.say(line)
    try:
        db_dict, carried = build_database(catalogue, previous, api_url.rstrip("/"))
    except BuildError as exc:
        return run.refuse([f"the new database fails its own checks: {exc}"])
    for line in _kept_lines(carried, catalogue):
        run.say(line)
    _keep_local_codes(db_dict, previous_raw)
    return _install(run, db_dict, previous_raw, dry_run=dry_run, force=force, today=today)


def _keep_local_codes(db_dict: dict, previous_raw: dict | None) -> None:
    """Carry the sets' codes in other languages (``local_codes``, from ``db build --names-i18n``) over
    from the current database to the sets the new one has: TCGdex's API does not give them, and the
    names in other languages stay in their own file beside the database (``names-i18n.json.gz``),
    which a sync leaves as it is."""
    if not previous_raw:
        return
    kept = {
        s.get("id"): s["local_codes"]
        for s in previous_raw.get("sets") or ()
        if isinstance(s, dict) and s.get("local_codes")
    }
    for record in db_dict["sets"]:
        codes = kept.get(record["id"])
        if codes and "local_codes" not in record:
            record["local_codes"] = codes


@dataclass
class _Run:
    """One sync's target, what it said so far and what it compares with."""

    target: Path
    echo: Callable[[str], None]
    previous: CardDB | None
    catalogue: Catalogue
    lines: list[str] = field(default_factory=list)

    @property
    def previous_version(self) -> str | None:
        return self.previous.version if self.previous else None

    def say(self, line: str) -> None:
        self.echo(line)
        self.lines.append(line)

    def result(self, status: str, summary: Summary | None, version: str | None) -> SyncResult:
        return SyncResult(
            status, self.target, list(self.lines), self.catalogue.problems, summary, version, self.previous_version
        )

    def refuse(self, reasons: list[str], *, new_db: CardDB | None = None, summary: Summary | None = None) -> SyncResult:
        self.say(f"Refused to replace {self.target}; the current database is unchanged:")
        for reason in reasons:
            self.say(f"  - {reason}")
        return self.result("refused", summary, new_db.version if new_db else None)


def _read_previous(path: Path) -> tuple[CardDB | None, dict | None, str | None, str | None]:
    """(the current database, its JSON, why it is unreadable, why its pack was not used)."""
    if not path.exists():
        return None, None, None, None
    try:
        blob = path.read_bytes()
        raw = json.loads(database_json(blob))
        try:
            return _cards.load(path), raw, None, None
        except _cards.DatabaseError as exc:
            if not pack_path(path).exists():
                raise
            # a pack that fails the load (damaged): the database is the JSON file, compared with and
            # carried from as without a pack (a sync that writes replaces the pack)
            db = _cards.from_dict(raw, hashlib.sha256(blob).hexdigest()[:12], str(path))
            return db, raw, None, str(exc)
    except (_cards.DatabaseError, OSError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        return None, None, str(exc) or repr(exc), None


def _download_lines(catalogue: Catalogue, api_url: str) -> list[str]:
    """What was fetched, and what was skipped."""
    lines = [
        f"Fetched {len(catalogue.sets)} sets and {len(catalogue.cards)} cards from {api_url} "
        f"({catalogue.fetched} card downloads, {catalogue.from_cache} from the cache)."
    ]
    if catalogue.placeholder_sets:
        lines.append(
            f"Skipped {len(catalogue.placeholder_sets)} set(s) the API lists without usable cards yet "
            "(announced, not filled; looked at again next sync): "
            + listing([f"{sid} {what}" for sid, what in sorted(catalogue.placeholder_sets.items())])
        )
    if catalogue.placeholder_cards:
        lines.append(
            f"Skipped {len(catalogue.placeholder_cards)} placeholder card(s) without game data yet "
            f"(fetched again next sync): {listing(sorted(catalogue.placeholder_cards))}"
        )
    if catalogue.problems:
        lines.append(f"Skipped {len(catalogue.problems)} invalid record(s):")
        lines += [f"  {p}" for p in catalogue.problems[:100]]
    return lines


def _kept_lines(carried: list[str], catalogue: Catalogue) -> list[str]:
    """What was carried over from the current database (:func:`deckcheck.sync.mapping.build_database`)."""
    kept_bad = [cid for cid in carried if cid in catalogue.skipped_card_ids]
    kept_other = sum(cid.startswith(PTCGIO_ONLY_PREFIX) for cid in carried)
    kept_waiting = len(carried) - len(kept_bad) - kept_other
    lines = []
    if kept_bad:
        lines.append(
            f"Kept the current row of {len(kept_bad)} card(s) whose new record was invalid: {listing(kept_bad)}"
        )
    if kept_other:
        lines.append(f"Kept {kept_other} record(s) that only pokemon-tcg-data has (ids {PTCGIO_ONLY_PREFIX}...).")
    if kept_waiting:
        lines.append(f"Kept the current row of {kept_waiting} card(s) that the API holds as placeholders now.")
    return lines


def _install(
    run: _Run, db_dict: dict, previous_raw: dict | None, *, dry_run: bool, force: bool, today: dt.date | None
) -> SyncResult:
    """Write the new database beside the target, check it and (unless refused, unchanged or a dry
    run) rename it over the target; the temporary file never stays."""
    target = run.target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=target.name + ".sync.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        return _check_and_place(run, db_dict, previous_raw, tmp, dry_run=dry_run, force=force, today=today)
    finally:
        for left in (tmp, pack_path(tmp)):  # the database and its pack (deckcheck.cards.pack), unless placed
            if left.exists():
                left.unlink()


def _check_and_place(
    run: _Run,
    db_dict: dict,
    previous_raw: dict | None,
    tmp: Path,
    *,
    dry_run: bool,
    force: bool,
    today: dt.date | None,
) -> SyncResult:
    previous = run.previous
    try:
        write_database(db_dict, tmp)
    except BuildError as exc:  # rows a load or the pack would refuse (a number with a NUL): nothing placed
        return run.refuse([str(exc)])
    try:
        new_db = _cards.load(tmp)
    except _cards.DatabaseError as exc:
        return run.refuse([f"the new database fails its own checks: {exc}"])
    hard = self_checks(new_db, db_dict, previous)
    if hard:
        return run.refuse([f"the new database fails its own checks: {r}" for r in hard], new_db=new_db)
    summary = compare(previous, new_db, today)
    for line in summary_lines(summary, previous, new_db):
        run.say(line)
    soft = safety_checks(new_db, previous)
    if soft and not force:
        return run.refuse(soft + ["run again with --force to install it anyway"], new_db=new_db, summary=summary)
    for reason in soft:
        run.say(f"Warning (--force): {reason}")
    if (
        previous_raw is not None
        and previous_raw.get("sets") == db_dict["sets"]
        and previous_raw.get("cards") == db_dict["cards"]
    ):
        run.say(f"No changes: {run.target} left as it is (version {run.previous_version}).")
        return run.result("unchanged", summary, run.previous_version)
    if dry_run:
        run.say(f"Dry run: {run.target} not written (it would become version {new_db.version}).")
        return run.result("dry-run", summary, new_db.version)
    os.replace(pack_path(tmp), pack_path(run.target))  # the pack first: it names the file it belongs to
    os.replace(tmp, run.target)
    run.say(
        f"Wrote {run.target}: {len(new_db.cards)} cards in {len(new_db.sets)} sets "
        f"(version {run.previous_version or '-'} -> {new_db.version})."
    )
    return run.result("written", summary, new_db.version)
