"""Packaging: the lock against pyproject.toml, the light CLI, and a built wheel installed into a clean virtualenv.

The wheel test (marked slow) builds the wheel and the sdist from this checkout, checks them with
``twine check --strict``, installs the wheel without extras into a new virtualenv (no system
site-packages) and runs the command line from an unrelated folder, then adds the ``server``
extra and serves. Its installs come from the package index (pip's cache makes a second run
quick), at the versions pinned in requirements.lock.
"""

from __future__ import annotations

import email
import os
import re
import signal
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest
import requests
from conftest import SHIPPED_FORMATS, free_port, wait_for_healthz
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

import deckcheck
from deckcheck.version import __version__

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "requirements.lock"
DECK = ROOT / "tests" / "decks" / "standard-legal-dragapult.txt"
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
#: the server stack: none of it may come with `pip install deckcheck`
SERVER_STACK = {
    "flask",
    "werkzeug",
    "gunicorn",
    "flask-smorest",
    "flask-limiter",
    "flask-cors",
    "pynacl",
    "redis",
    "limits",
    "webargs",
    "apispec",
}
SERVER_EXTRA_MISSING = (
    "Error: deckcheck serve needs the server extra (flask, flask_smorest, flask_limiter, "
    "flask_cors, gunicorn, nacl, webargs not installed): pip install 'deckcheck[server]'\n"
)


# -- the lock --------------------------------------------------------------------------------------


def locked() -> dict[str, tuple[str, str]]:
    """requirements.lock: canonical name -> (pinned version, its "via" comment lines)."""
    pins: dict[str, tuple[str, str]] = {}
    name = None
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)", line.strip())
        if match:
            name = canonicalize_name(match[1])
            pins[name] = (match[2], "")
        elif line.startswith("    #") and name:
            pins[name] = (pins[name][0], pins[name][1] + line + "\n")
        elif not line.strip() or not line.startswith(" "):
            name = None
    return pins


def declared() -> list[Requirement]:
    """Every requirement pyproject.toml declares (the dependencies and each extra), minus deckcheck's own extras."""
    lines = list(PROJECT["dependencies"])
    for extra in PROJECT["optional-dependencies"].values():
        lines += extra
    return [req for req in map(Requirement, lines) if canonicalize_name(req.name) != "deckcheck"]


def test_lock_pins_every_declared_requirement_within_its_range():
    """A requirement added to pyproject.toml, or a range moved past the pin, needs `bash scripts/lock.sh`."""
    pins = locked()
    stale = []
    for req in declared():
        if req.marker is not None and not req.marker.evaluate():
            continue
        pin = pins.get(canonicalize_name(req.name))
        if pin is None or not req.specifier.contains(pin[0], prereleases=True):
            stale.append(f"{req} (locked: {pin[0] if pin else 'nothing'})")
    assert stale == [], "requirements.lock is stale against pyproject.toml: run `bash scripts/lock.sh`"


def test_lock_holds_nothing_pyproject_no_longer_asks_for():
    """A requirement removed from pyproject.toml leaves a pin "via deckcheck" behind until the lock is regenerated."""
    names = {canonicalize_name(req.name) for req in declared()}
    orphans = [
        name
        for name, (_version, via) in locked().items()
        if re.search(r"#\s+(via\s+)?deckcheck\b", via) and name not in names
    ]
    assert orphans == [], "requirements.lock is stale against pyproject.toml: run `bash scripts/lock.sh`"


def test_lock_says_how_to_regenerate_it():
    text = LOCK.read_text(encoding="utf-8")
    assert "#    bash scripts/lock.sh\n" in text
    assert "--find-links" not in text and "--index-url" not in text  # nothing of one machine's pip setup
    assert re.findall(r"^\S+ @ .*", text, flags=re.MULTILINE) == []  # no path of a checkout (deckcheck itself)


def test_pytest_stays_below_the_release_schemathesis_breaks_on():
    assert (
        Requirement(
            next(r for r in PROJECT["optional-dependencies"]["test"] if r.startswith("pytest>"))
        ).specifier.contains("9.2.0")
        is False
    )


# -- light installs ----------------------------------------------------------------------------------


def test_the_package_without_extras_needs_no_server_stack():
    core = {canonicalize_name(Requirement(r).name) for r in PROJECT["dependencies"]}
    assert core & SERVER_STACK == set()
    server = {canonicalize_name(Requirement(r).name) for r in PROJECT["optional-dependencies"]["server"]}
    assert SERVER_STACK - {"redis"} <= server


@pytest.mark.server
def test_the_command_line_never_imports_flask():
    """`deckcheck check` and `--version` run without Flask even where it is installed (as here), and without
    what only `db sync` needs (requests, marshmallow: imported when that command runs)."""
    code = (
        "import sys\n"
        "from deckcheck.cli import main\n"
        "for argv in (['--version'], ['check', '--as-of', '2026-05-01', sys.argv[1]], ['serve', '--help']):\n"
        "    try:\n"
        "        main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'flask', 'werkzeug', 'gunicorn', 'nacl', "
        "'requests', 'marshmallow'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(DECK)], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"


def test_version_imports_no_command_no_core_and_no_click():
    """`deckcheck --version` is answered before click is imported: no command module, no engine, no card
    database, no click and no package metadata look-up (issue #16: its start-up cost)."""
    code = (
        "import sys\n"
        "from deckcheck.cli import main\n"
        "code = main(['--version'])\n"
        "print(code, sorted(m for m in sys.modules if m.startswith('deckcheck.') and m != 'deckcheck.cli'))\n"
        "print(sorted(set(sys.modules) & {'click', 'importlib.metadata', 'typing'}))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.splitlines() == ["deckcheck, version " + __version__, "0 ['deckcheck.version']", "[]"]


def test_the_quick_version_answer_is_what_click_prints(capsys):
    """main()'s answer to `--version` without click is byte for byte the click group's version option."""
    from click.testing import CliRunner

    from deckcheck.cli import cli, main

    assert main(["--version"]) == 0
    quick = capsys.readouterr().out
    by_click = CliRunner().invoke(cli, ["--version"], prog_name="deckcheck")
    assert (by_click.exit_code, by_click.output) == (0, quick)
    assert quick == f"deckcheck, version {__version__}\n"


def test_the_version_is_written_once():
    """pyproject.toml reads the version from deckcheck/version.py (a dynamic version), so the installed
    metadata and `deckcheck.__version__` are the same string."""
    assert "version" not in PROJECT and PROJECT["dynamic"] == ["version"]
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert setuptools["dynamic"]["version"] == {"attr": "deckcheck.version.__version__"}
    assert version("deckcheck") == __version__ == deckcheck.__version__


def test_the_formats_load_without_the_engine_imported_first():
    """Loading the format files checks their rule names against the registry, which the rules fill when
    imported: `import deckcheck` no longer imports the engine, so the formats load the rules themselves."""
    code = "from deckcheck.formats import default_formats\nprint(sorted(default_formats()))\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"{list(SHIPPED_FORMATS)}\n"


def test_the_pre_commit_hook_installs_the_command_line_only():
    import yaml

    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert (hook["language"], hook["entry"]) == ("python", "deckcheck check --skip-non-decks")
    assert "additional_dependencies" not in hook  # `pip install .`: no extras, so no server stack


# -- a built wheel ---------------------------------------------------------------------------------


def clean_env(venv: Path | None = None) -> dict:
    """The environment without this checkout on PYTHONPATH (a test run may set it) and, given, with ``venv`` first."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    if venv:
        env.update(VIRTUAL_ENV=str(venv), PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}")
    return env


def run(argv: list, **kwargs) -> subprocess.CompletedProcess:
    kwargs.setdefault("env", clean_env())
    done = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=900, **kwargs)
    assert done.returncode == 0, f"{argv}: exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> dict[str, Path]:
    """The sdist built from this checkout, and the wheel built from the sdist (as `python -m build` does by
    default: no stale build/ folder of the checkout can leak into the wheel). No build isolation: the
    test extra has the build backend, so this needs no download."""
    out = tmp_path_factory.mktemp("dist")
    env = clean_env()
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # set, setuptools warns that it does not byte-compile
    done = run([sys.executable, "-m", "build", "--no-isolation", "--outdir", out, ROOT], env=env)
    built = {path.suffix: path for path in out.iterdir()}
    return {"wheel": built[".whl"], "sdist": built[".gz"], "log": done.stdout + done.stderr}


@pytest.mark.slow
def test_build_has_no_warnings_and_twine_check_is_strictly_clean(dist):
    assert re.findall(r".*warning.*", dist["log"], flags=re.IGNORECASE) == []
    run([sys.executable, "-m", "twine", "check", "--strict", dist["wheel"], dist["sdist"]])


@pytest.mark.slow
def test_the_wheel_carries_the_gunicorn_settings_the_data_and_the_licences(dist):
    with zipfile.ZipFile(dist["wheel"]) as wheel:
        names = set(wheel.namelist())
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(wheel.read(info))
    dist_info = info.rsplit("/", 1)[0]
    assert {
        "deckcheck/service/gunicorn_conf.py",
        "deckcheck/service/static/deckcheck.js",
        "deckcheck/cli/__init__.py",
        "deckcheck/data/cards.json.gz",
        "deckcheck/data/cards.json.gz.pack",
        "deckcheck/data/formats/standard.toml",
        "deckcheck/service/templates/apidocs/reference.html",
        f"{dist_info}/licenses/LICENSE",
        f"{dist_info}/licenses/NOTICE",
    } <= names
    assert not any(n.startswith(("tests/", "benchmarks/", "gunicorn.conf.py")) for n in names)
    assert metadata["License-Expression"] == "MIT"
    assert sorted(metadata.get_all("License-File")) == ["LICENSE", "NOTICE"]
    assert metadata.get_all("Provides-Extra") == ["server", "redis", "test"]
    plain = [r for r in metadata.get_all("Requires-Dist") if "extra ==" not in r]
    assert {canonicalize_name(Requirement(r).name) for r in plain} & SERVER_STACK == set()


@pytest.mark.slow
def test_the_sdist_is_the_package_source_without_the_tests(dist):
    """The README says so: the tests need the repository (fixtures, goldens, the scripts that install Chromium...)."""
    with tarfile.open(dist["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    assert {
        "LICENSE",
        "NOTICE",
        "README.md",
        "pyproject.toml",
        "requirements.lock",
        "deckcheck/service/gunicorn_conf.py",
        "data/cards.json.gz",
        "data/cards.json.gz.pack",
        "data/formats/standard.toml",
    } <= names
    assert not any(name.startswith("tests/") for name in names)
    assert "the sdist holds the package's source only" in (ROOT / "README.md").read_text(encoding="utf-8")


@pytest.mark.slow
def test_the_wheel_checks_decks_without_extras_and_serves_with_the_server_extra(dist, tmp_path):
    venv = tmp_path / "venv"
    elsewhere = tmp_path / "elsewhere"  # an unrelated working directory
    # a repository of its own: deckcheck's configuration search stops here, whatever a parent holds
    (elsewhere / ".git").mkdir(parents=True)
    run([sys.executable, "-m", "venv", venv])  # no --system-site-packages
    python = venv / "bin" / "python"
    pip = [python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "-c", LOCK]
    env = clean_env(venv)

    # `pip install deckcheck`: the library and the command line, no web stack
    run([*pip, dist["wheel"]], env=env)
    installed = run([python, "-m", "pip", "list", "--format=freeze"], env=env).stdout.lower()
    assert {canonicalize_name(line.split("==")[0]) for line in installed.split()} & SERVER_STACK == set()
    where = run([python, "-c", "import deckcheck; print(deckcheck.__file__)"], cwd=elsewhere, env=env).stdout
    assert where.startswith(str(venv))
    no_flask = subprocess.run([python, "-c", "import flask"], capture_output=True, text=True, cwd=elsewhere, env=env)
    assert no_flask.returncode == 1 and "ModuleNotFoundError: No module named 'flask'" in no_flask.stderr
    checked = run([venv / "bin" / "deckcheck", "check", "--as-of", "2026-05-01", DECK], cwd=elsewhere, env=env)
    assert checked.stdout == "Checked 1 deck: all passed.\n"
    version = run([python, "-m", "deckcheck", "--version"], cwd=elsewhere, env=env)
    assert version.stdout == f"deckcheck, version {__version__}\n"
    serve = subprocess.run(
        [venv / "bin" / "deckcheck", "serve"], capture_output=True, text=True, cwd=elsewhere, env=env, timeout=120
    )
    assert (serve.returncode, serve.stderr) == (3, SERVER_EXTRA_MISSING)

    # `pip install 'deckcheck[server]'`: deckcheck serve, from the unrelated folder
    run([*pip, f"{dist['wheel']}[server]"], env=env)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [venv / "bin" / "deckcheck", "serve", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=elsewhere,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_healthz(proc, base, 60)
        ready = requests.get(base + "/readyz", timeout=10)
        assert ready.status_code == 200 and ready.json()["database"]["cards"] > 20000
        answer = requests.post(
            base + "/api/v1/validate",
            timeout=10,
            json={"decklist": DECK.read_text(encoding="utf-8"), "as_of": "2026-05-01"},
        )
        assert (answer.status_code, answer.json()["valid"]) == (200, True)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            _out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            _out, err = proc.communicate()
    assert proc.returncode == 0, err
