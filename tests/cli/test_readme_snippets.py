"""The README's GitHub Action and pre-commit snippets work when pasted (issue #31).

They name the repository's GitHub path (``pyproject.toml``'s ``[project.urls] Source``), the tag of the
current version (``v`` + ``deckcheck/version.py``: the release tag scheme the README states), inputs and
outputs ``action.yml`` has, and a hook ``.pre-commit-hooks.yaml`` defines.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from deckcheck.version import __version__

ROOT = Path(__file__).resolve().parent.parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
TAG = f"v{__version__}"


def section(title: str) -> str:
    start = README.index(f"\n### {title}\n")
    end = README.index("\n### ", start + 1)
    return README[start:end]


def yaml_blocks(text: str) -> list:
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", text, re.S)]


def repository() -> str:
    """``owner/name`` of the repository on GitHub, from the package's Source URL."""
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    found = re.fullmatch(r"https://github\.com/([^/]+/[^/]+)", urls["Source"])
    assert found, urls["Source"]
    return found[1]


def test_the_repository_path_is_one_a_user_can_paste():
    # GitHub's owner and repository names: letters, digits, hyphens (and . _ in the name); a placeholder
    # such as OWNER or <owner> fails here, and every [project.urls] entry names the same repository
    assert re.fullmatch(r"[a-z0-9](?:[a-z0-9-]*[a-z0-9])?/[a-z0-9._-]+", repository()), repository()
    urls = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["urls"]
    assert all(url.startswith(f"https://github.com/{repository()}") for url in urls.values()), urls
    assert "OWNER" not in README


def test_the_action_snippet_names_this_repository_at_the_current_tag_and_real_inputs():
    (workflow,) = yaml_blocks(section("GitHub Action"))
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["deckcheck"]["steps"]
    (ours,) = [step for step in steps if step.get("id") == "deckcheck"]
    assert ours["uses"] == f"{repository()}@{TAG}"  # action.yml sits at the root: the repository is the action
    assert (ROOT / "action.yml").is_file()
    assert set(ours["with"]) <= set(action["inputs"])
    used = set(re.findall(r"steps\.deckcheck\.outputs\.([a-z-]+)", section("GitHub Action")))
    assert used and used <= set(action["outputs"])
    # the SARIF the upload step reads is the one the action was asked to write
    (upload,) = [step for step in steps if str(step.get("uses", "")).startswith("github/codeql-action/upload-sarif")]
    assert upload["with"]["sarif_file"] == ours["with"]["sarif"]
    # pasted into a repository with the layout the README describes (a decks/ folder), every path exists and
    # the check runs on today's date: no path of the example's own, no date pinned in the past
    assert ours["with"]["paths"].split() == [action["inputs"]["paths"]["default"]] == ["decks"]
    assert "as-of" not in ours["with"]


def test_the_pre_commit_snippet_names_this_repository_the_current_tag_and_a_real_hook():
    (config,) = yaml_blocks(section("pre-commit"))
    hooks = {hook["id"] for hook in yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    (repo,) = config["repos"]
    assert repo["repo"] == f"https://github.com/{repository()}"
    assert repo["rev"] == TAG
    assert {hook["id"] for hook in repo["hooks"]} <= hooks


def test_the_readme_states_the_tag_scheme_of_the_current_version():
    assert f"this README is for **{TAG}**" in README
    assert f"git tag {TAG} && git push origin {TAG}" in README
    assert "<commit sha>" not in README  # a placeholder no one can paste


# -- the release tag ---------------------------------------------------------------------------

RELEASE = ROOT / "scripts" / "release_tag.sh"


def git(cwd: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "PATH": "/usr/bin:/bin",
        "HOME": str(cwd),
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_release_script_tags_the_version_once_and_pushes_it(tmp_path):
    remote, work = tmp_path / "remote.git", tmp_path / "work"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(tmp_path, "init", "-q", "-b", "main", str(work))
    (work / "deckcheck").mkdir()
    (work / "deckcheck" / "version.py").write_text(f'__version__ = "{__version__}"\n', encoding="utf-8")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "release")
    git(work, "remote", "add", "origin", str(remote))
    git(work, "push", "-q", "origin", "main")
    head = git(work, "rev-parse", "HEAD").strip()

    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    first = subprocess.run(["bash", str(RELEASE)], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert first.returncode == 0, first.stderr
    assert f"as {TAG} and pushed it to origin" in first.stdout
    # the remote has the tag, on the commit that declares the version
    assert git(remote, "rev-parse", f"{TAG}^{{commit}}").strip() == head
    again = subprocess.run(["bash", str(RELEASE)], cwd=work, env=env, capture_output=True, text=True, timeout=60)
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == f"release_tag: {TAG} exists on origin; nothing to do"


def test_the_release_workflow_runs_the_script_on_main_when_the_version_changes():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))
    trigger = workflow[True]  # YAML 1.1 reads the key "on" as True
    assert trigger["push"] == {"branches": ["main"], "paths": ["deckcheck/version.py"]}
    assert workflow["permissions"] == {"contents": "write"}
    (job,) = workflow["jobs"].values()
    assert any(step.get("run") == "bash scripts/release_tag.sh origin" for step in job["steps"])
    assert ".github/workflows/release.yml" in README and "scripts/release_tag.sh" in README


@pytest.mark.slow
def test_the_release_workflow_validates_against_the_github_workflow_schema():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "check_jsonschema",
            "--builtin-schema",
            "vendor.github-workflows",
            str(ROOT / ".github" / "workflows" / "release.yml"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
