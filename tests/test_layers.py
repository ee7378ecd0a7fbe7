"""The layers (README, "Architecture"): ``lint-imports`` keeps the import contracts of pyproject.toml.

The core (names, parse, cards, engine, render...) never imports an edge (deckcheck.service, .cli, .sync, .client)
nor Flask, click, requests, werkzeug or gunicorn, directly or through another module; the service never
imports the command line.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    """``lint-imports`` over the package in ``root`` (its pyproject.toml, its deckcheck/), without a cache."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, env=env, capture_output=True, text=True, timeout=300
    )


@pytest.mark.slow
def test_the_import_contracts_are_kept():
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Contracts: 3 kept, 0 broken." in done.stdout


@pytest.mark.slow
def test_a_core_module_importing_an_edge_breaks_the_contract(tmp_path):
    """The contract can fail: a copy of the package where the core imports the service through another module."""
    shutil.copytree(ROOT / "deckcheck", tmp_path / "deckcheck", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(tmp_path / "deckcheck" / "dates.py", "a", encoding="utf-8") as fh:
        fh.write("\nfrom .service import paths  # noqa: E402,F401\n")
    done = lint_imports(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "The core imports no edge and no web, command-line or network library BROKEN" in done.stdout
    assert "deckcheck.dates -> deckcheck.service.paths" in done.stdout


def test_no_module_imports_itself_back():
    """No import cycle between deckcheck's modules: not at module level, not in a function, not for the
    type checker (grimp's graph of every import)."""
    import grimp

    graph = grimp.build_graph("deckcheck", exclude_type_checking_imports=False)
    # Tarjan's strongly connected components, iteratively: a component of more than one module is a cycle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            module, edges = work[-1]
            for target in edges:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.find_modules_directly_imported_by(target)))))
                    break
                if target in on_stack:
                    low[module] = min(low[module], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[module])
                if low[module] == index[module]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == module:
                            break
                    if len(component) > 1:
                        cycles.append(sorted(component))
    assert cycles == []


#: the modules at the top of the package that are not the core: the edges
NOT_CORE = {"__init__", "__main__", "service", "cli", "sync", "client"}


def test_every_core_module_is_under_the_contract():
    """A new module at the top of the package is core: it must be named in the contract's source modules."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["name"].startswith("The core imports no edge")]
    package = ROOT / "deckcheck"
    top = {p.stem for p in package.glob("*.py")} | {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    assert sorted(f"deckcheck.{name}" for name in top - NOT_CORE) == sorted(contract["source_modules"])
