"""What ``deckcheck serve`` (:mod:`deckcheck.cli.serve`) runs: the HTTP service under gunicorn with the
settings in ``deckcheck.service.gunicorn_conf``.

The settings are a module of the package (``--config python:deckcheck.service.gunicorn_conf``), so a
wheel serves from any working directory. gunicorn itself runs as ``python -P -m deckcheck.service.serve``:
``-P`` keeps the working directory off ``sys.path`` and this module imports the package before
gunicorn puts the working directory first on ``sys.path``, so a ``deckcheck/`` folder where the
command starts (a checkout's parent) can never shadow the installed package.
"""

from __future__ import annotations

import importlib.util
import os
import sys

#: the gunicorn settings: a module of this package
CONFIG = "python:deckcheck.service.gunicorn_conf"
#: what ``deckcheck serve`` needs beyond the library and the command line (the ``server`` extra)
SERVER_MODULES = ("flask", "flask_smorest", "flask_limiter", "flask_cors", "gunicorn", "nacl", "webargs")
SERVER_EXTRA = "pip install 'deckcheck[server]'"


def missing_server_modules() -> list[str]:
    """The modules of the ``server`` extra that cannot be imported here (found, not imported)."""
    return [name for name in SERVER_MODULES if importlib.util.find_spec(name) is None]


def gunicorn_argv(config: str, bind: str | None, workers: int | None) -> list[str]:
    """The gunicorn command line; options not given are left to the settings."""
    argv = [sys.executable, "-P", "-m", "deckcheck.service.serve", "--config", config]
    if bind:
        argv += ["--bind", bind]
    if workers:
        argv += ["--workers", str(workers)]
    return argv


def preflight() -> dict:
    """Build the app once here, so a missing database or a broken format file is one clear line.

    Raises the core's :class:`~deckcheck.cards.DatabaseError` or :class:`~deckcheck.formats.FormatError`
    (the command line turns them into its exit code 3 and a usage error).

    :return: the card database's ``info()``.
    """
    from ..cards import get_db
    from .app import create_app

    metrics = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if metrics:  # the app's metrics write there as it is built (gunicorn_conf empties it when it starts)
        os.makedirs(metrics, exist_ok=True)
    create_app()
    return get_db().info()


def run_gunicorn() -> None:
    """gunicorn's own command line, in the process ``deckcheck serve`` becomes
    (``python -P -m deckcheck.service.serve``).

    The package is already imported (``-m`` imports it first), so gunicorn's imports of
    ``deckcheck.service.gunicorn_conf`` and ``deckcheck:create_app()`` find this installation even after
    gunicorn has put the working directory first on ``sys.path``.
    """
    from gunicorn.app.wsgiapp import run

    run(prog="gunicorn")


if __name__ == "__main__":
    run_gunicorn()
