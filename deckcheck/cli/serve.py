"""``deckcheck serve``: the command that runs the HTTP service (:mod:`deckcheck.service.serve`) under gunicorn."""

from __future__ import annotations

import os
import sys

import click

from ..cards import DatabaseError
from ..formats import FormatError
from ..service.serve import CONFIG, SERVER_EXTRA, gunicorn_argv, missing_server_modules
from ..service.serve import preflight as _preflight
from .common import DatabaseMissing


class ServerExtraMissing(click.ClickException):
    """The ``server`` extra is not installed: exit code 3, like any other missing part of the installation."""

    exit_code = 3


def preflight() -> dict:
    """Build the app once, so a missing database or a broken format file is one clear line (exit code 3, 1).

    :return: the card database's ``info()``.
    """
    try:
        return _preflight()
    except DatabaseError as exc:
        raise DatabaseMissing(str(exc)) from exc
    except FormatError as exc:
        raise click.ClickException(f"format definitions: {exc}") from exc


@click.command()
@click.option(
    "--bind",
    envvar="DECKCHECK_BIND",
    default=None,
    metavar="HOST:PORT",
    help="Address to listen on [env DECKCHECK_BIND; default 127.0.0.1:8000, this machine only; "
    "0.0.0.0:8000 serves the network, as the Docker image does].",
)
@click.option(
    "--workers",
    envvar="DECKCHECK_WORKERS",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes [env DECKCHECK_WORKERS; default: CPUs + 1].",
)
@click.option(
    "--config",
    "config_path",
    envvar="DECKCHECK_GUNICORN_CONFIG",
    default=None,
    type=click.Path(exists=True, dir_okay=False),
    help="A gunicorn settings file instead of the package's own (deckcheck/service/gunicorn_conf.py).",
)
@click.option("--dry-run", is_flag=True, help="Check the app and the database, print the gunicorn command, exit.")
def serve(bind: str | None, workers: int | None, config_path: str | None, dry_run: bool) -> None:
    """Serve the JSON API and the web page with gunicorn (needs the ``server`` extra).

    The card database is loaded once in the gunicorn master before it forks the
    workers. Access log on stdout, errors on stderr; SIGTERM stops gracefully.
    """
    missing = missing_server_modules()
    if missing:
        raise ServerExtraMissing(
            f"deckcheck serve needs the server extra ({', '.join(missing)} not installed): {SERVER_EXTRA}"
        )
    config = os.path.abspath(config_path) if config_path else CONFIG
    info = preflight()
    argv = gunicorn_argv(config, bind, workers)
    click.echo(f"deckcheck: card database {info['version']} ({info['cards']} cards); {' '.join(argv[1:])}", err=True)
    if dry_run:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)  # gunicorn takes over this process: signals go straight to its master
