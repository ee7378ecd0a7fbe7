"""The README's GitHub Action and pre-commit snippets work when pasted (issue #31).

They name the repository's GitHub path (``pyproject.toml``'s ``[project.urls] Source``), the tag of the
current version (``v`` + ``deckcheck/version.py``: the release tag scheme the README states), inputs and
outputs ``action.yml`` has, and a hook ``.pre-commit-hooks.yaml`` defines.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

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
