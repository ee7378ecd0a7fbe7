"""The ``deckcheck db`` commands of the database-making edge: ``db sync`` (TCGdex, or the
pokemontcg.io cross-check), ``db publish`` and ``db pull``. The CLI loads them when first used
(they bring requests and marshmallow, which ``deckcheck check`` never needs).

The only place here that turns an outcome into an exit status: 0 written, unchanged, dry run or
cross-checked; 1 refused (:class:`~deckcheck.sync.install.SyncResult`), or ``db publish`` /
``db pull`` failed; 3 the card database cannot be read (the CLI's :class:`DatabaseMissing`);
4 the download failed (:class:`~deckcheck.sync.tcgdex.FetchError`).
"""

from __future__ import annotations

import random
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from .. import cards as _cards
from ..sync.fetch import PULL_DEADLINE, SYNC_DEADLINE, BoundedSession, DownloadError, open_session, stop_all
from ..sync.install import sync
from ..sync.pokemontcg import DEFAULT_PTCGIO_URL, crosscheck_pokemontcg
from ..sync.publish import publish, pull, round_wait
from ..sync.tcgdex import DEFAULT_API_URL, SyncError
from .common import DatabaseMissing


@click.command("sync")
@click.option(
    "--api-url",
    default=None,
    metavar="URL",
    help=f"API base URL (default: {DEFAULT_API_URL}; with --source pokemontcg: {DEFAULT_PTCGIO_URL}).",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Database to replace (default: the service's database path).",
)
@click.option(
    "--base",
    type=click.Path(dir_okay=False),
    default=None,
    help="Database to compare with and to take set codes and subtypes from (default: --output).",
)
@click.option("--dry-run", is_flag=True, help="Download, build, check and report; write nothing.")
@click.option(
    "--force", is_flag=True, help="Install even if the new database has over 5 percent fewer cards or lost a set."
)
@click.option("--refresh", is_flag=True, help="Ignore cached card payloads and download every card again.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Card payload cache (default: ~/.cache/deckcheck/tcgdex).",
)
@click.option(
    "--max-age",
    type=click.FloatRange(min=0),
    default=12.0,
    show_default=True,
    help="Hours a cached card payload is reused.",
)
@click.option("--workers", type=click.IntRange(1, 16), default=4, show_default=True, help="Parallel downloads.")
@click.option(
    "--timeout",
    type=click.FloatRange(min=0.1),
    default=30.0,
    show_default=True,
    help="Read timeout per request, seconds (the connect timeout is 5 s).",
)
@click.option(
    "--retries",
    type=click.IntRange(0, 20),
    default=5,
    show_default=True,
    help="Retries per request on connection errors, timeouts, 429 and 5xx.",
)
@click.option(
    "--backoff",
    type=click.FloatRange(min=0),
    default=0.5,
    show_default=True,
    help="Backoff factor: waits grow as factor x 2^n seconds between retries (at most 30 s).",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0.1),
    default=SYNC_DEADLINE,
    show_default=True,
    help="Seconds the whole download may take (each answer at most 120 s, retries included).",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="HOST",
    help="Another host a redirect may lead to (repeatable); by default only the API URL's host.",
)
@click.option(
    "--source",
    type=click.Choice(["tcgdex", "pokemontcg"]),
    default="tcgdex",
    show_default=True,
    help="pokemontcg: cross-check marks and Standard legality against pokemontcg.io v2 (no writes).",
)
@click.option("--api-key", envvar="POKEMONTCG_API_KEY", default=None, help="pokemontcg.io key (X-Api-Key).")
def sync_command(**options) -> None:
    """Update the card database from the TCGdex API (https://api.tcgdex.net).

    Exit status: 0 written, unchanged or dry run; 1 refused (the new database
    shrank, lost a set or failed its checks: the current file is unchanged);
    4 the download failed (nothing written; run again to resume from the cache).
    """
    with _stopped_by_sigterm():
        _sync(**options)


def _sync(
    api_url,
    output,
    base,
    dry_run,
    force,
    refresh,
    cache_dir,
    max_age,
    workers,
    timeout,
    retries,
    backoff,
    deadline,
    allow_hosts,
    source,
    api_key,
) -> None:
    """`db sync` (its options: :func:`sync_command`)."""
    ctx = click.get_current_context()
    if source == "pokemontcg":
        _crosscheck(
            api_url or DEFAULT_PTCGIO_URL,
            output,
            api_key=api_key,
            workers=workers,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            deadline=deadline,
            allow_hosts=allow_hosts,
        )
        return  # divergences are for a human to read: exit 0
    try:
        result = sync(
            api_url or DEFAULT_API_URL,
            output,
            base=base,
            dry_run=dry_run,
            force=force,
            refresh=refresh,
            cache_dir=cache_dir,
            max_age=max_age * 3600,
            workers=workers,
            timeout=timeout,
            retries=retries,
            backoff=backoff,
            deadline=deadline,
            allow_hosts=allow_hosts,
            echo=click.echo,
        )
    except SyncError as exc:
        click.echo(f"Error: {exc}", err=True)
        click.echo("Nothing was written; payloads already downloaded are cached, so running again resumes.", err=True)
        ctx.exit(exc.exit_code)
    if result.exit_code:
        ctx.exit(result.exit_code)


def _crosscheck(api_url: str, output: str | None, **options) -> None:
    """``db sync --source pokemontcg``: the database at ``output`` against pokemontcg.io."""
    path = Path(output) if output else _cards.default_path()
    try:
        db = _cards.load(path)
        crosscheck_pokemontcg(api_url, db, echo=click.echo, **options)
    except _cards.DatabaseError as exc:
        raise DatabaseMissing(str(exc)) from exc
    except SyncError as exc:
        click.echo(f"Error: {exc}", err=True)
        click.get_current_context().exit(exc.exit_code)


@click.command("publish")
@click.option(
    "--to",
    "folder",
    required=True,
    type=click.Path(file_okay=False),
    help="Folder a web server serves to the replicas.",
)
@click.option(
    "--db",
    "database",
    type=click.Path(exists=True, dir_okay=False),
    default=None,
    help="The database to publish (default: the service's database path).",
)
def publish_command(folder: str, database: str | None) -> None:
    """Publish the card database and its SHA-256 for replicas to pull (after `deckcheck db sync`)."""
    try:
        target, digest = publish(database or _cards.default_path(), folder)
    except _cards.DatabaseError as exc:
        raise click.ClickException(str(exc)) from exc
    click.echo(f"Published {target} (sha256 {digest}).")


@click.command("pull")
@click.argument("url")
@click.option(
    "--to",
    "target",
    type=click.Path(dir_okay=False),
    default=None,
    help="Where the service reads its database (default: the service's database path).",
)
@click.option("--sha256", default=None, metavar="HEX", help="The expected checksum (default: URL.sha256).")
@click.option(
    "--every",
    type=click.FloatRange(min=1),
    default=None,
    metavar="SECONDS",
    help="Keep pulling every SECONDS (a sidecar); a failed round is reported in one line and tried again "
    "with exponential backoff and jitter (at most 1 hour apart, or SECONDS if longer).",
)
@click.option(
    "--timeout", type=click.FloatRange(min=1), default=30.0, show_default=True, help="Seconds to connect, and per read."
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0.1),
    default=PULL_DEADLINE,
    show_default=True,
    help="Seconds one round may take in all (the checksum and the database, retries and redirects included).",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="HOST",
    help="Another host a redirect may lead to (repeatable); by default only URL's host.",
)
def pull_command(
    url: str,
    target: str | None,
    sha256: str | None,
    every: float | None,
    timeout: float,
    deadline: float,
    allow_hosts: tuple[str, ...],
) -> None:
    """Fetch a published card database, check its SHA-256 and that it loads, and move it into place."""
    path = Path(target) if target else _cards.default_path()
    with _stopped_by_sigterm():
        try:
            session = open_session([url], allow_hosts=allow_hosts)
        except DownloadError as exc:
            raise click.UsageError(str(exc)) from None
        with session:
            _pull_rounds(url, path, sha256, every, timeout, deadline, session)


def _pull_rounds(
    url: str,
    path: Path,
    sha256: str | None,
    every: float | None,
    timeout: float,
    deadline: float,
    session: BoundedSession,
) -> None:
    """One round of ``db pull``, or with ``every`` rounds until stopped: a failed round never ends them."""
    failures = 0
    while True:
        error: Exception | None = None
        try:
            changed, digest = pull(url, path, sha256, timeout=timeout, deadline=deadline, session=session)
            click.echo(f"{'Pulled' if changed else 'Already current:'} {path} (sha256 {digest}).")
        except (DownloadError, OSError) as exc:
            if every is None:
                raise click.ClickException(_one_line(exc)) from None
            error = exc
        except _cards.DatabaseError as exc:
            if every is None:
                raise DatabaseMissing(_one_line(exc)) from None
            error = exc
        if every is None:
            return
        failures = failures + 1 if error else 0
        wait = round_wait(every, failures, random.uniform(0.5, 1.0))
        if error:
            click.echo(f"Error: {_one_line(error)} (round {failures} failed; next in {wait:.1f} s)", err=True)
        time.sleep(wait)


def _one_line(exc: BaseException) -> str:
    """An error's message on one line (a message from a library may hold line breaks)."""
    return " ".join(str(exc).split()) or exc.__class__.__name__


@contextmanager
def _stopped_by_sigterm() -> Iterator[None]:
    """SIGTERM ends the command as Ctrl-C does, by an exception (exit status 143), so every ``finally``
    runs and no temporary file stays; the downloads running in other threads end at once."""

    def stop(signum: int, frame: object) -> None:
        stop_all()
        raise SystemExit(128 + signum)

    try:
        previous = signal.signal(signal.SIGTERM, stop)
    except ValueError:  # not the main thread (an embedding program): its own handling applies
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
