"""``deckcheck serve``: run the HTTP service under gunicorn with the committed ``gunicorn.conf.py``."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

CONFIG_NAME = "gunicorn.conf.py"


def find_config(explicit: str | None = None) -> Path:
    """The gunicorn settings file: ``--config``, else ``./gunicorn.conf.py``, else the checkout's own.

    :raise click.ClickException: when there is none.
    """
    if explicit:
        return Path(explicit)
    candidates = [Path.cwd() / CONFIG_NAME, Path(__file__).resolve().parent.parent / CONFIG_NAME]
    for path in candidates:
        if path.is_file():
            return path
    raise click.ClickException(
        f"no {CONFIG_NAME} in {candidates[0].parent} or {candidates[1].parent}: run from the deckcheck "
        "checkout or pass --config"
    )


def gunicorn_argv(config: Path, bind: str | None, workers: int | None) -> list[str]:
    """The gunicorn command line; options not given are left to the settings file."""
    argv = [sys.executable, "-m", "gunicorn", "--config", str(config)]
    if bind:
        argv += ["--bind", bind]
    if workers:
        argv += ["--workers", str(workers)]
    return argv


def preflight() -> dict:
    """Build the app once here, so a missing database or a broken format file is one clear line.

    :return: the card database's ``info()``.
    """
    from .app import create_app
    from .cards import DatabaseError, get_db
    from .cli import DatabaseMissing
    from .formats import FormatError

    try:
        create_app()
    except DatabaseError as exc:
        raise DatabaseMissing(str(exc)) from exc
    except FormatError as exc:
        raise click.ClickException(f"format definitions: {exc}") from exc
    return get_db().info()


@click.command()
@click.option("--bind", envvar="DECKCHECK_BIND", default=None, metavar="HOST:PORT",
              help="Address to listen on [env DECKCHECK_BIND; default 127.0.0.1:8000, this machine only; "
                   "0.0.0.0:8000 serves the network, as the Docker image does].")
@click.option("--workers", envvar="DECKCHECK_WORKERS", type=click.IntRange(min=1), default=None,
              help="Worker processes [env DECKCHECK_WORKERS; default: CPUs + 1].")
@click.option("--config", "config_path", envvar="DECKCHECK_GUNICORN_CONFIG", default=None,
              type=click.Path(exists=True, dir_okay=False),
              help=f"gunicorn settings file [default: ./{CONFIG_NAME}, else the checkout's].")
@click.option("--dry-run", is_flag=True, help="Check the app and the database, print the gunicorn command, exit.")
def serve(bind: str | None, workers: int | None, config_path: str | None, dry_run: bool) -> None:
    """Serve the JSON API and the web page with gunicorn.

    The card database is loaded once in the gunicorn master before it forks the
    workers. Access log on stdout, errors on stderr; SIGTERM stops gracefully.
    """
    config = find_config(config_path)
    info = preflight()
    argv = gunicorn_argv(config, bind, workers)
    click.echo(f"deckcheck: card database {info['version']} ({info['cards']} cards); {' '.join(argv[1:])}",
               err=True)
    if dry_run:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)  # gunicorn takes over this process: signals go straight to its master
