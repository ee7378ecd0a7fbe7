"""``deckcheck serve``: run the HTTP service under gunicorn with the settings in ``deckcheck.gunicorn_conf``.

The settings are a module of the package (``--config python:deckcheck.gunicorn_conf``), so a
wheel serves from any working directory. gunicorn itself runs as ``python -P -m deckcheck.serve``:
``-P`` keeps the working directory off ``sys.path`` and this module imports the package before
gunicorn puts the working directory first on ``sys.path``, so a ``deckcheck/`` folder where the
command starts (a checkout's parent) can never shadow the installed package.
"""

from __future__ import annotations

import importlib.util
import os
import sys

import click

#: the gunicorn settings: a module of this package
CONFIG = "python:deckcheck.gunicorn_conf"
#: what ``deckcheck serve`` needs beyond the library and the command line (the ``server`` extra)
SERVER_MODULES = ("flask", "flask_smorest", "flask_limiter", "flask_cors", "gunicorn", "nacl", "webargs")
SERVER_EXTRA = "pip install 'deckcheck[server]'"


class ServerExtraMissing(click.ClickException):
    """The ``server`` extra is not installed: exit code 3, like any other missing part of the installation."""

    exit_code = 3


def missing_server_modules() -> list[str]:
    """The modules of the ``server`` extra that cannot be imported here (found, not imported)."""
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def gunicorn_argv(config: str, bind: str | None, workers: int | None) -> list[str]:
    """The gunicorn command line; options not given are left to the settings."""
    argv = [sys.executable, "-P", "-m", "deckcheck.serve", "--config", config]
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
    help="A gunicorn settings file instead of the package's own (deckcheck/gunicorn_conf.py).",
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


def run_gunicorn() -> None:
    """gunicorn's own command line, in the process ``deckcheck serve`` becomes (``python -P -m deckcheck.serve``).

    The package is already imported (``-m`` imports it first), so gunicorn's imports of
    ``deckcheck.gunicorn_conf`` and ``deckcheck:create_app()`` find this installation even after
    gunicorn has put the working directory first on ``sys.path``.
    """
    from gunicorn.app.wsgiapp import run

    run(prog="gunicorn")


if __name__ == "__main__":
    run_gunicorn()
