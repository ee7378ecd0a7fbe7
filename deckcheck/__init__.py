"""deckcheck: Pokémon TCG deck validation and legality.

``deckcheck.check(text, format="standard", as_of=None)`` returns a
:class:`~deckcheck.problems.Report`; ``deckcheck.create_app()`` builds the
HTTP service.
"""

from .engine import check
from .problems import Problem, Report


def __getattr__(name: str):
    """``deckcheck.__version__``, read from the installed metadata on first use: importlib.metadata
    (and the email package it brings) costs more at start-up than the rest of ``import deckcheck``."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        value = version("deckcheck")
    except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
        value = "0.0.0"
    globals()["__version__"] = value
    return value


def create_app(config=None):
    """Build the Flask application (imported lazily so the library needs no Flask)."""
    from .service.app import create_app as _create_app

    return _create_app(config)


__all__ = ["check", "create_app", "Problem", "Report", "__version__"]
