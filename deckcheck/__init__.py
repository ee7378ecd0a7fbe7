"""deckcheck: Pokémon TCG deck validation and legality.

``deckcheck.check(text, format="standard", as_of=None)`` returns a
:class:`~deckcheck.problems.Report`; ``deckcheck.create_app()`` builds the
HTTP service.
"""

from .engine import check
from .problems import Problem, Report


def __getattr__(name: str) -> str:
    """``deckcheck.__version__`` (:mod:`deckcheck.version`: read on first use)."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from .version import installed_version

    return installed_version()


def create_app(config=None):
    """Build the Flask application (imported lazily so the library needs no Flask)."""
    from .service.app import create_app as _create_app

    return _create_app(config)


__all__ = ["check", "create_app", "Problem", "Report", "__version__"]
