"""The static gate: scripts/lint.sh (run by .ci/run) and the contributors' .pre-commit-config.yaml run the
same checks, and the pre-commit configuration is one pre-commit accepts."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def _gate_commands() -> list[str]:
    lines = (ROOT / "scripts" / "lint.sh").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith(("#", "set ", "cd "))]


def test_the_gate_runs_lint_format_types_and_import_contracts():
    assert _gate_commands() == [
        "python -m ruff check .",
        "python -m ruff format --check .",
        "python -m mypy",
        "lint-imports",
    ]


def test_ci_runs_the_gate():
    assert 'PATH="$DECKCHECK_VENV/bin:$PATH" bash scripts/lint.sh' in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_pre_commit_runs_each_check_of_the_gate():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    entries = [hook["entry"] for repo in config["repos"] for hook in repo["hooks"]]
    assert entries == [
        "python -m ruff check --force-exclude",
        "python -m ruff format --check --force-exclude",
        "python -m mypy",
        "lint-imports",
    ]
    for command, entry in zip(_gate_commands(), entries, strict=True):
        assert command.split(" .")[0] == entry.removesuffix(" --force-exclude")


def test_pre_commit_accepts_the_configuration():
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(ROOT / ".pre-commit-config.yaml")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
