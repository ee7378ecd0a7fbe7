"""deckcheck: Pokémon TCG deck validation and legality.

``deckcheck.check(text, format="standard", as_of=None)`` returns a
:class:`~deckcheck.problems.Report`; ``deckcheck.create_app()`` builds the
HTTP service.
"""

from importlib.metadata import PackageNotFoundError, version

from .engine import check
from .problems import Problem, Report

try:
    __version__ = version("deckcheck")
except PackageNotFoundError:  # pragma: no cover - running from a bare checkout
    __version__ = "0.0.0"


def create_app(config=None):
    """Build the Flask application (imported lazily so the library needs no Flask)."""
    from .app import create_app as _create_app

    return _create_app(config)


__all__ = ["check", "create_app", "Problem", "Report", "__version__"]
