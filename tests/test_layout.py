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


#: the edges: the README's diagram names them as packages, with their own paragraphs for their modules
EDGES = ("service", "cli", "sync")


def test_the_architecture_diagram_names_every_module_of_the_core():
    """README's "Architecture" diagram shows the core as it is: every package and every module of it is named
    there, so a module added (or a package moved) without its place in the picture fails here."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index("\n## Architecture\n")
    diagram = readme[start : readme.index("```\n", readme.index("```", start) + 3)]
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        if parts[0] in EDGES or parts[-1] in ("__init__", "__main__"):
            continue
        if parts[-1] not in diagram.replace("-", "_"):
            missing.append("/".join(parts))
    packages = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} - set(EDGES)
    missing += [f"deckcheck.{name}" for name in sorted(packages) if f"deckcheck.{name}" not in diagram]
    assert missing == [], f"modules of the core the README's Architecture diagram does not name: {missing}"
