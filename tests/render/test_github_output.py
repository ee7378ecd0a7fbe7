"""The ``github`` output: annotations capped at what GitHub shows, most severe first, and the job summary.

GitHub shows 10 error, 10 warning and 10 notice annotations per step (50 per job) and drops the
rest silently (actions/toolkit docs/problem-matchers.md, "Limitations"). Every problem must still
reach the reader: in the log as a plain line, and in the Markdown job summary with a link to its line.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from deckcheck.cli import cli
from deckcheck.problems import Counts, Problem, Report
from deckcheck.render import (
    GITHUB_ANNOTATIONS_PER_JOB,
    GITHUB_ANNOTATIONS_PER_LEVEL,
    GITHUB_SUMMARY_MAX_BYTES,
    Options,
    github_annotations,
    github_summary,
    render_github,
    render_jsonl,
)

HERE = Path(__file__).resolve().parent.parent / "cli"
ON = "2026-05-01"
ANNOTATION = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),title=([^:]+)::(.*)$")


def report(*problems: Problem) -> Report:
    return Report(
        format="standard",
        format_name="Standard",
        as_of=ON,
        problems=list(problems),
        lines=[],
        counts=Counts(),
        database={},
    )


def many(n_decks: int = 20) -> list[tuple[str, Report]]:
    """200 problems over 20 decks: 4 errors, 4 warnings and 2 info each."""
    out = []
    for d in range(n_decks):
        ps = [Problem("copy-limit", f"Deck {d} error {i}.", lines=(10 + i,)) for i in range(4)]
        ps += [Problem("evolution-gap", f"Deck {d} warning {i}.", lines=(20 + i,)) for i in range(4)]
        ps += [Problem("resolved-by-name", f"Deck {d} info {i}.", lines=(30 + i,)) for i in range(2)]
        out.append((f"decks/d{d:02}.txt", report(*ps)))
    return out


def test_200_problems_give_at_most_what_github_shows_most_severe_first():
    results = many()
    assert sum(len(r.problems) for _, r in results) == 200
    lines = render_github(results, Options()).splitlines()
    annotations = [ANNOTATION.match(line) for line in lines if line.startswith("::")]
    levels = [m[1] for m in annotations]
    # 70 errors and 70 warnings went to the log: no notice takes the reader's eye from them
    assert levels == ["error"] * 10 + ["warning"] * 10
    assert len(annotations) <= GITHUB_ANNOTATIONS_PER_JOB
    # the first ten errors in path and line order
    assert [(m[2], m[3]) for m in annotations[:3]] == [
        ("decks/d00.txt", "10"),
        ("decks/d00.txt", "11"),
        ("decks/d00.txt", "12"),
    ]
    note = lines.index(
        "180 more problems not annotated (GitHub shows 10 errors, 10 warnings and 10 notices per "
        "step; notices only when every failure has its annotation); every problem is in the job summary:"
    )
    rest = lines[note + 1 : -1]
    assert len(rest) == 180
    assert rest[0] == "decks/d02.txt:12: copy-limit Deck 2 error 2."
    assert rest[-1] == "decks/d19.txt:31: resolved-by-name (info) Deck 19 info 1."
    assert lines[-1] == "Checked 20 decks: 0 passed, 20 failed (80 errors, 80 warnings, 40 info)."
    # every problem is in the log, once
    for _, r in results:
        for p in r.problems:
            assert sum(p.message in line for line in lines) == 1


def test_notices_only_with_room_left_and_failing_decks_first():
    """Issue #31: all ten notice slots went to legal-by-reprint info on decks that pass."""
    passing = [
        (
            f"decks/a{d}.txt",
            report(*[Problem("resolved-by-name", f"Pass {d} info {i}.", lines=(i + 1,)) for i in range(5)]),
        )
        for d in range(3)
    ]
    failing = (
        "decks/z.txt",
        report(
            Problem("copy-limit", "Z error.", lines=(3,)),
            Problem("evolution-gap", "Z warning.", lines=(4,)),
            Problem("resolved-by-name", "Z info.", lines=(5,)),
        ),
    )
    annotated, rest = github_annotations([*passing, failing], Options())
    shown = [(path, p.message) for path, p in annotated]
    assert shown[:4] == [
        ("decks/z.txt", "Z error."),
        ("decks/z.txt", "Z warning."),
        ("decks/z.txt", "Z info."),  # the failing deck's info before the passing decks'
        ("decks/a0.txt", "Pass 0 info 0."),
    ]
    assert len(annotated) == 12 and len(rest) == 6
    # one error too many: no notice at all, the failures first in the log
    crowded = [(f"decks/e{d:02}.txt", report(Problem("copy-limit", f"E{d}.", lines=(1,)))) for d in range(11)] + passing
    annotated, rest = github_annotations(crowded, Options())
    assert [p.severity for _, p in annotated] == ["error"] * 10
    assert [p.message for _, p in rest][:2] == ["E10.", "Pass 0 info 0."]


def test_quiet_github_shows_only_what_fails_under_fail_on(runner, monkeypatch):
    monkeypatch.chdir(HERE)
    args = ["check", "decks", "--as-of", ON, "--output-format", "github", "-q"]
    levels = {m[1] for line in runner.invoke(cli, args).stdout.splitlines() if (m := ANNOTATION.match(line))}
    assert levels == {"error"}
    lines = runner.invoke(cli, [*args, "--fail-on", "warning"]).stdout.splitlines()
    assert {m[1] for line in lines if (m := ANNOTATION.match(line))} == {"error", "warning"}
    assert not any("(info)" in line or "Checked" in line for line in lines)


def test_job_summary_puts_failing_decks_first_and_counts_what_was_not_annotated():
    results = [("decks/a-ok.txt", report())] + many(3)
    md = github_summary(results, Options(), lambda path, line: f"u/{path}")
    table = [line for line in md.splitlines() if line.startswith("| [")]
    assert [row.split("]")[0] for row in table] == [
        "| [decks/d00.txt",
        "| [decks/d01.txt",
        "| [decks/d02.txt",
        "| [decks/a\\-ok.txt",
    ]
    assert (
        "**10 problems not annotated**: GitHub shows 10 annotations of each level a step; they are listed below "
        "with the rest." in md
    )
    assert "not annotated" not in github_summary(many(1), Options())


def test_a_small_run_is_all_annotations():
    results = many(2)
    lines = render_github(results, Options(summary=False)).splitlines()
    assert len(lines) == 20 and all(line.startswith("::") for line in lines)
    assert GITHUB_ANNOTATIONS_PER_LEVEL == 10


def test_job_summary_has_every_verdict_and_every_problem_with_its_link():
    results = many() + [("decks/ok.txt", report())]
    md = github_summary(results, Options(), lambda path, line: f"https://x/{path}#L{line}")
    assert md.startswith(
        "## deckcheck\n\nChecked 21 decks: 1 passed, 20 failed \\(80 errors, 80 warnings, 40 info\\).\n"
    )
    assert "| [decks/ok.txt](https://x/decks/ok.txt#L1) | ✅ passes | Standard | 2026-05-01 | 0 | 0 | 0 |" in md
    assert "| [decks/d07.txt](https://x/decks/d07.txt#L1) | ❌ fails | Standard | 2026-05-01 | 4 | 4 | 2 |" in md
    items = [line for line in md.splitlines() if line.startswith("- **")]
    assert len(items) == 200
    assert "- **error** [line 13](https://x/decks/d19.txt#L13) `copy-limit` (R102): Deck 19 error 3." in items
    assert "- **info** [line 30](https://x/decks/d00.txt#L30) `resolved-by-name` (C102): Deck 0 info 0." in items


def test_job_summary_escapes_markdown_and_html_and_says_whole_deck():
    p = Problem("deck-size", "Your <b>deck</b> | has [56](x) cards *now*.")
    md = github_summary([("decks/a|b.txt", report(p))], Options(), lambda path, line: "u")
    assert (
        "- **error** whole deck `deck-size` (R101): Your &lt;b&gt;deck&lt;/b&gt; \\| has \\[56\\]\\(x\\) cards "
        "\\*now\\*." in md
    )
    assert "[decks/a\\|b.txt](u)" in md


def test_job_summary_stays_under_githubs_limit():
    big = [
        (f"decks/{i}.txt", report(*[Problem("copy-limit", "x" * 900, lines=(n,)) for n in range(1, 100)]))
        for i in range(20)
    ]
    md = github_summary(big, Options())
    assert len(md.encode()) <= GITHUB_SUMMARY_MAX_BYTES
    assert md.rstrip().endswith("_The summary stops here: GitHub accepts at most 1 MiB. The log has every problem._")


def test_jsonl_is_one_report_a_line():
    lines = render_jsonl(many(3)).splitlines()
    assert len(lines) == 3 and all(line.startswith('{"path":"decks/d0') for line in lines)


def test_cli_appends_the_summary_to_github_step_summary_with_links_to_the_commit(runner, monkeypatch, tmp_path):
    monkeypatch.chdir(HERE)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
    monkeypatch.setenv("GITHUB_REPOSITORY", "owner/decks")
    monkeypatch.setenv("GITHUB_SHA", "abc123")
    monkeypatch.setenv("GITHUB_WORKSPACE", str(HERE.parent))
    result = runner.invoke(cli, ["check", "decks", "--as-of", ON, "--output-format", "github"])
    assert result.exit_code == 1
    md = summary.read_text(encoding="utf-8")
    assert md.startswith("earlier step\n## deckcheck\n")  # appended, never overwritten
    assert (
        "- **error** [line 13](https://github.com/owner/decks/blob/abc123/cli/decks/invalid.txt#L13) "
        "`copy-limit` (R102): You have 5 cards named Ultra Ball \\(line 13\\); the limit is 4."
    ) in md
    assert "| [decks/valid.txt](https://github.com/owner/decks/blob/abc123/cli/decks/valid.txt#L1) | ✅ passes |" in md
    # other output formats leave the summary alone
    before = summary.read_text(encoding="utf-8")
    runner.invoke(cli, ["check", "decks", "--as-of", ON, "--output-format", "text"])
    assert summary.read_text(encoding="utf-8") == before


@pytest.mark.parametrize("value", ["sarif", "xml=out.xml", "json="])
def test_report_option_needs_format_equals_file(runner, monkeypatch, value):
    monkeypatch.chdir(HERE)
    result = runner.invoke(cli, ["check", "decks/valid.txt", "--as-of", ON, "--report", value])
    assert result.exit_code == 2
    assert f"{value!r} is not FORMAT=FILE with FORMAT one of text, json, jsonl, github, sarif, junit" in result.stderr


def test_report_files_hold_the_same_run(runner, monkeypatch, tmp_path):
    monkeypatch.chdir(HERE)
    result = runner.invoke(
        cli,
        [
            "check",
            "decks",
            "--as-of",
            ON,
            "--report",
            f"jsonl={tmp_path / 'r.jsonl'}",
            "--report",
            f"junit={tmp_path / 'r.xml'}",
        ],
    )
    assert result.exit_code == 1
    assert len((tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()) == 3
    assert '<testsuites name="deckcheck" tests="3" failures="2"' in (tmp_path / "r.xml").read_text(encoding="utf-8")
