"""What ``deckcheck check --output-format github`` writes besides its annotations, inside GitHub Actions.

The Markdown job summary goes to ``$GITHUB_STEP_SUMMARY`` (appended) with links to each
problem's file and line at the commit being checked; the step outputs ``valid``,
``checked-count`` and ``invalid-count`` go to ``$GITHUB_OUTPUT``. A file that cannot be
written is a warning on stderr, never a failed check.
"""

from __future__ import annotations

import os
from urllib.parse import quote

from ..render import Options, fails, github_summary

STDIN_LABEL = "<stdin>"


def line_link(path: str, line: int, env=os.environ) -> str:
    """The URL of a file's line on GitHub for the commit being checked (``path#Lline`` outside Actions)."""
    if path != STDIN_LABEL and env.get("GITHUB_WORKSPACE"):
        path = os.path.relpath(os.path.abspath(path), env["GITHUB_WORKSPACE"]).replace(os.sep, "/")
    server, repo, sha = env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_SHA")
    base = f"{server}/{repo}/blob/{sha}/" if server and repo and sha else ""
    return f"{base}{quote(path, safe='/')}#L{line}"


def outputs(results, fail_on: str) -> dict[str, str]:
    """The step outputs of a run: ``valid`` (every deck passed), ``checked-count``, ``invalid-count``."""
    failed = sum(fails(report, fail_on) for _, report in results)
    return {
        "valid": "true" if not failed else "false",
        "checked-count": str(len(results)),
        "invalid-count": str(failed),
    }


def _append(target: str, text: str) -> str | None:
    try:
        with open(target, "a", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        return f"warning: could not write to {target}: {exc.strerror or exc}"
    return None


def write(results, fail_on: str, env=os.environ) -> list[str]:
    """Append the job summary and the step outputs where Actions asks; the warnings of what failed."""
    warnings = []
    if env.get("GITHUB_STEP_SUMMARY"):
        summary = github_summary(results, Options(fail_on), lambda path, line: line_link(path, line, env))
        warnings.append(_append(env["GITHUB_STEP_SUMMARY"], summary))
    if env.get("GITHUB_OUTPUT"):
        lines = "".join(f"{k}={v}\n" for k, v in outputs(results, fail_on).items())
        warnings.append(_append(env["GITHUB_OUTPUT"], lines))
    return [w for w in warnings if w]
