"""The ``sarif`` output format: SARIF 2.1.0, for code scanning (GitHub's upload-sarif and other tools)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from urllib.parse import quote

from ..problems import CATALOGUE, ERROR, INFO, WARNING
from .commandsafe import json_command_safe
from .results import DEFAULT_OPTIONS, Options, Results, sentence

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {ERROR: "error", WARNING: "warning", INFO: "note"}


def _artifact_uri(path: str) -> str:
    if path.startswith("/"):
        return PurePosixPath(path).as_uri()
    return quote(path, safe="/")


def _version() -> str:
    from ..version import __version__

    return __version__


def render_sarif(results: Results, opts: Options = DEFAULT_OPTIONS) -> str:
    """SARIF 2.1.0: one run, one rule per rule name that occurs, one result per problem.

    info becomes ``note``; a problem without a line points at line 1.
    """
    used = sorted({p.rule for _, r in results for p in r.problems})
    index = {rule: i for i, rule in enumerate(used)}
    rules = [
        {
            "id": rule,
            "name": rule,
            "shortDescription": {"text": CATALOGUE[rule].title},
            "defaultConfiguration": {"level": _SARIF_LEVEL[CATALOGUE[rule].severity]},
            "properties": {"code": CATALOGUE[rule].code},
        }
        for rule in used
    ]
    found = [
        {
            "ruleId": p.rule,
            "ruleIndex": index[p.rule],
            "level": _SARIF_LEVEL[p.severity],
            "message": {"text": sentence(p)},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _artifact_uri(path)},
                        "region": {"startLine": p.line or 1},
                    }
                }
            ],
            "properties": {"code": p.code, "format": report.format, "as_of": report.as_of},
        }
        for path, report in results
        for p in report.problems
    ]
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "deckcheck", "version": _version(), "rules": rules}},
                "results": found,
            }
        ],
    }
    return json_command_safe(json.dumps(doc, ensure_ascii=False, indent=2)) + "\n"
