"""deckcheck: Pokémon TCG deck validation and legality.

``deckcheck.check(text, format="standard", as_of=None)`` returns a
:class:`~deckcheck.problems.Report`; ``deckcheck.create_app()`` builds the
HTTP service.
"""

from __future__ import annotations

# not typing's: importing typing costs more than the rest of `import deckcheck` (mypy and ruff know the name)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .engine import check
    from .problems import Problem, Report


def __getattr__(name: str) -> Any:
    """``check``, ``Problem``, ``Report`` and ``__version__``, imported on first use and then kept as module
    attributes: ``import deckcheck`` (which every ``deckcheck.<module>`` import runs first) then costs
    nothing, and ``deckcheck --version`` never loads the engine."""
    value: Any
    if name == "check":
        from . import engine

        value = engine.check
    elif name in ("Problem", "Report"):
        from . import problems

        value = getattr(problems, name)
    elif name == "__version__":
        from .version import installed_version

        value = installed_version()
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups find it without this function
    return value


def create_app(config=None):
    """Build the Flask application (imported lazily so the library needs no Flask)."""
    from .service.app import create_app as _create_app

    return _create_app(config)


__all__ = ["check", "create_app", "Problem", "Report", "__version__"]
