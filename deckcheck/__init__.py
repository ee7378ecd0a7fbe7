"""deckcheck: Pokémon TCG deck validation and legality.

``deckcheck.check(text, format="standard", as_of=None)`` returns a
:class:`~deckcheck.problems.Report`; ``deckcheck.create_app()`` builds the
HTTP service.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import check
    from .problems import Problem, Report


def __getattr__(name: str) -> Any:
    """``check``, ``Problem``, ``Report`` and ``__version__``, imported on first use: ``import deckcheck``
    (which every ``deckcheck.<module>`` import runs first) then costs nothing, and ``deckcheck --version``
    never loads the engine."""
    if name == "check":
        from .engine import check

        return check
    if name in ("Problem", "Report"):
        from . import problems

        return getattr(problems, name)
    if name == "__version__":
        from .version import installed_version

        return installed_version()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def create_app(config=None):
    """Build the Flask application (imported lazily so the library needs no Flask)."""
    from .service.app import create_app as _create_app

    return _create_app(config)


__all__ = ["check", "create_app", "Problem", "Report", "__version__"]
