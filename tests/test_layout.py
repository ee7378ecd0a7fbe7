"""The package's layout: each module does one job, and none is so long that a newcomer cannot read it whole.

A module past :data:`MAX_LINES` lines is doing more than one job: cut it by responsibility (README,
"Architecture"), keeping its public import path (a package ``__init__`` that re-exports).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "deckcheck"
#: the most lines a module of deckcheck/ may have
MAX_LINES = 500


def lines_of(path: Path) -> int:
    with path.open("rb") as fh:
        return sum(1 for _ in fh)


def test_no_module_is_over_the_line_limit():
    assert len(list(PACKAGE.rglob("*.py"))) > 100  # the walk sees the package
    over = {
        str(path.relative_to(ROOT)): lines_of(path)
        for path in sorted(PACKAGE.rglob("*.py"))
        if lines_of(path) > MAX_LINES
    }
    assert over == {}, f"modules over {MAX_LINES} lines (cut each by responsibility): {over}"
