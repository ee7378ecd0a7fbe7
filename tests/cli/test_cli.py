"""Tests for the command line: ``deckcheck check``, configuration, ``fmt``, ``cards``, integrations.

Golden outputs live in ``tests/cli/golden/decks.<format>`` for the decks in
``tests/cli/decks`` (one valid, one invalid with several problems, one with
an unresolved card). Regenerate them with
``DECKCHECK_REGEN=1 python -m pytest tests/cli/test_cli.py -k golden`` and read
the diff before committing it. Every test pins ``--as-of``.
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

import deckcheck
from deckcheck.cli import cli, globs
from deckcheck.cli import repoconfig as dconfig
from deckcheck.cli.check import check_cmd, show_progress
from deckcheck.cli.common import MAX_BYTES, MAX_LINES
from deckcheck.formats import default_formats
from deckcheck.render import OUTPUT_FORMATS, RENDERERS

ROOT = Path(__file__).resolve().parent.parent.parent
HERE = Path(__file__).resolve().parent.parent / "cli"
GOLDEN = HERE / "golden"
DECKS = Path(__file__).resolve().parent.parent / "decks"
REGEN = os.environ.get("DECKCHECK_REGEN") == "1"
ON = "2026-05-01"
VALID = (HERE / "decks" / "valid.txt").read_text(encoding="utf-8")


@pytest.fixture()
def in_cli_dir(monkeypatch):
    monkeypatch.chdir(HERE)
    return HERE


@pytest.fixture()
def repo(tmp_path, monkeypatch) -> Path:
    """An empty folder that looks like a repository root (config lookup stops here)."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def run(runner: CliRunner, *args: str, **kw):
    return runner.invoke(cli, list(args), catch_exceptions=False, **kw)


def known_formats() -> str:
    return ", ".join(sorted(default_formats()))


# -- golden outputs ---------------------------------------------------------------------------


def normalise(output_format: str, out: str) -> str:
    """Take out what changes with the database build and the package version."""
    if output_format in ("json", "jsonl"):
        lines = []
        for line in out.splitlines():
            if line.startswith("{"):
                comma = "," if line.endswith(",") else ""
                doc = json.loads(line.rstrip(","))
                doc["database"] = "<database>"
                line = json.dumps(doc, ensure_ascii=False) + comma
            lines.append(line)
        return "\n".join(lines) + "\n"
    if output_format == "sarif":
        return re.sub(r'("name": "deckcheck",\s*"version": )"[^"]*"', r'\1"<version>"', out)
    return out


def test_the_output_formats_are_named_where_they_are_offered():
    """--output-format offers :data:`deckcheck.render.OUTPUT_FORMATS` (their one list), the formats
    ``RENDERERS`` writes; its help and the README's row describe each of them, and no other."""
    option = next(p for p in check_cmd.params if p.name == "output_format")
    assert tuple(option.type.choices) == OUTPUT_FORMATS == tuple(RENDERERS)  # each with its renderer
    described = re.findall(r"\b(?:" + "|".join(map(re.escape, OUTPUT_FORMATS)) + r")\b", option.help)
    assert sorted(set(described)) == sorted(OUTPUT_FORMATS)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = re.findall(r"^\| `--output-format` \| (.+) \|$", readme, re.M)
    assert [re.findall(r"`([a-z]+)`", found) for found in row] == [list(OUTPUT_FORMATS)]


@pytest.mark.parametrize("output_format", OUTPUT_FORMATS)
def test_golden(runner, in_cli_dir, output_format):
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", output_format, "--no-color")
    assert result.exit_code == 1, result.output
    out = normalise(output_format, result.stdout)
    golden = GOLDEN / f"decks.{output_format}"
    if REGEN:
        golden.write_text(out, encoding="utf-8")
    assert out == golden.read_text(encoding="utf-8")


def test_json_output_is_the_api_report_with_its_path(runner, in_cli_dir, db):
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", "json")
    docs = json.loads(result.stdout)
    assert [d["path"] for d in docs] == ["decks/invalid.txt", "decks/unresolved.txt", "decks/valid.txt"]
    for doc in docs:
        text = (HERE / doc.pop("path")).read_text(encoding="utf-8")
        assert doc == deckcheck.check(text, "standard", ON, db=db).to_dict()


# -- exit codes ------------------------------------------------------------------------------


def test_valid_deck_exits_0(runner, in_cli_dir):
    result = run(runner, "check", "decks/valid.txt", "--as-of", ON)
    assert (result.exit_code, result.stdout) == (0, "Checked 1 deck: all passed.\n")


def test_invalid_deck_exits_1_unless_exit_zero(runner, in_cli_dir):
    assert run(runner, "check", "decks/invalid.txt", "--as-of", ON).exit_code == 1
    result = run(runner, "check", "decks/invalid.txt", "--as-of", ON, "--exit-zero")
    assert result.exit_code == 0 and "copy-limit" in result.stdout


def test_fail_on_warning(runner, repo):
    write(repo / "warn.txt", VALID.replace("Total Cards: 60", "Total Cards: 61"))
    result = run(runner, "check", "warn.txt", "--as-of", ON)
    assert result.exit_code == 0
    assert result.stdout == (
        "warn.txt:32: total-mismatch (warning) The list says Total Cards: 61, but its card "
        "lines add up to 60.\nChecked 1 deck: all passed (1 warning).\n"
    )
    assert run(runner, "check", "warn.txt", "--as-of", ON, "--fail-on", "warning").exit_code == 1


def test_quiet_prints_problems_only(runner, in_cli_dir):
    result = run(runner, "check", "decks", "--as-of", ON, "--quiet")
    assert result.exit_code == 1 and "Checked" not in result.stdout
    assert result.stdout.splitlines()[0].startswith("decks/invalid.txt: deck-size ")
    assert run(runner, "check", "decks/valid.txt", "--as-of", ON, "-q").stdout == ""


def test_quiet_prints_only_what_fails_under_fail_on(runner, in_cli_dir):
    """Issue #31: -q still printed info lines."""
    everything = run(runner, "check", "decks", "--as-of", ON).stdout.splitlines()[:-1]
    errors = [line for line in everything if "(warning)" not in line and "(info)" not in line]
    warnings = [line for line in everything if "(warning)" in line]
    assert errors and warnings and any("(info)" in line for line in everything)
    assert run(runner, "check", "decks", "--as-of", ON, "-q").stdout.splitlines() == errors
    quiet = run(runner, "check", "decks", "--as-of", ON, "-q", "--fail-on", "warning").stdout.splitlines()
    assert sorted(quiet) == sorted(errors + warnings)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "nope"], "Invalid value for '--format': unknown format 'nope' (known: {known})"),
        (["--as-of", "2026-02-30"], "Invalid value for '--as-of': '2026-02-30' is not a date (YYYY-MM-DD)"),
        (["--as-of", "yesterday"], "Invalid value for '--as-of': 'yesterday' is not a date (YYYY-MM-DD)"),
        (["missing.txt"], "Invalid value for '[PATHS]...': Path 'missing.txt' does not exist."),
        (["--output-format", "xml"], "Invalid value for '--output-format': 'xml' is not one of"),
        (["--fail-on", "info"], "Invalid value for '--fail-on': 'info' is not one of"),
    ],
    ids=["format", "impossible-date", "not-a-date", "missing-path", "output-format", "fail-on"],
)
def test_usage_errors_exit_2(runner, in_cli_dir, args, message):
    result = run(runner, "check", "decks/valid.txt", "--as-of", ON, *args)
    assert result.exit_code == 2
    assert "Error: " + message.format(known=known_formats()) in result.stderr


def test_missing_database_exits_3(runner, in_cli_dir):
    result = run(runner, "check", "decks/valid.txt", "--as-of", ON, env={"DECKCHECK_DB": "/nonexistent/cards.json.gz"})
    assert result.exit_code == 3
    assert result.stderr == (
        "Error: card database not found at /nonexistent/cards.json.gz (build it with 'deckcheck db build')\n"
    )


@pytest.mark.parametrize(
    "blob", [b"\x1f\x8b\x08\x00garbage", b"{not json", b'{"schema": 0}'], ids=["bad-gzip", "bad-json", "wrong-layout"]
)
def test_corrupt_database_exits_3(runner, in_cli_dir, tmp_path, blob):
    bad = write(tmp_path / "cards.json.gz", blob)
    result = run(runner, "check", "decks/valid.txt", "--as-of", ON, env={"DECKCHECK_DB": str(bad)})
    assert result.exit_code == 3 and result.stdout == ""
    assert result.stderr.startswith("Error: card database ") and str(bad) in result.stderr, result.stderr


# -- the card database's age (issue 19) -----------------------------------------------------

STALE = (
    "a.txt: stale-database (warning) The card database's newest set is Pitch Black, released 2026-07-17, "
    "137 days before 2026-12-01; the most allowed is 90 days. Cards from sets released after Pitch Black are "
    'unknown to it: update the card database with "deckcheck db sync" or a newer release of deckcheck.\n'
)


def test_max_db_age_from_the_configuration_warns_and_fails_on_warning(runner, repo):
    write(repo / "a.txt", VALID)
    assert run(runner, "check", "a.txt", "--as-of", "2026-12-01", "-q").stdout == ""  # off by default
    write(repo / "deckcheck.toml", "max-db-age = 90\n")
    result = run(runner, "check", "a.txt", "--as-of", "2026-12-01")
    assert (result.exit_code, result.stdout.splitlines()[0] + "\n") == (0, STALE)
    result = run(runner, "check", "a.txt", "--as-of", "2026-12-01", "-q")
    assert (result.exit_code, result.stdout) == (0, "")  # -q: only what fails the deck
    result = run(runner, "check", "a.txt", "--as-of", "2026-12-01", "-q", "--fail-on", "warning")
    assert (result.exit_code, result.stdout) == (1, STALE)
    # the option wins over the file; on the release date's side of the limit there is nothing to say
    warn = ("-q", "--fail-on", "warning")
    assert run(runner, "check", "a.txt", "--as-of", "2026-12-01", *warn, "--max-db-age", "137").stdout == ""
    assert run(runner, "check", "a.txt", "--as-of", "2026-10-15", *warn).stdout == ""
    result = run(runner, "check", "a.txt", "--as-of", "2026-12-01", "--max-db-age", "-3")
    assert result.exit_code == 2 and "--max-db-age" in result.stderr


def test_max_db_age_in_pyproject(runner, repo):
    write(repo / "pyproject.toml", "[tool.deckcheck]\nmax-db-age = 90\n")
    write(repo / "a.txt", VALID)
    assert run(runner, "check", "a.txt", "--as-of", "2026-12-01", "-q", "--fail-on", "warning").stdout == STALE


def test_db_status_names_the_file_build_sources_and_newest_set(runner, db):
    result = run(runner, "db", "status", "--as-of", "2026-12-01")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0] == f"File:       {db.path}"
    assert lines[1] == f"Version:    {db.version}"
    assert lines[2] == f"Built:      {db.meta['built_at']}"
    assert lines[3] == (
        "Sources:    tcgdex d9083b73db080979123ebf5e9e97338d4e0745b2, pokemon-tcg-data "
        "4ac4eb1ac5020e92987b64beee7a360d8fbcca7d"
    )
    assert lines[4] == f"Cards:      {len(db.cards)} in {len(db.sets)} sets"
    assert lines[5] == "Newest set: Pitch Black (PBL), released 2026-07-17, 137 days before 2026-12-01"
    assert lines[6] == "Update:     deckcheck db sync (or a newer release of deckcheck)"
    data = json.loads(run(runner, "db", "status", "--json", "--as-of", "2026-12-01").stdout)
    assert data == {**db.info(), "path": db.path, "age_days": 137}
    assert data["newest_set"] == {"id": "me05", "name": "Pitch Black", "code": "PBL", "release": "2026-07-17"}


def test_fmt_keeps_a_line_of_an_unknown_set_as_written(runner, repo):
    """A newer set's printing is never rewritten as an older printing of the same name."""
    write(repo / "new.txt", "4 Pikachu ex ZZZ 57\n4 Mystery Newcard ABC 12\n4 Ultra Ball\n")
    result = run(runner, "fmt", "new.txt")
    assert result.exit_code == 0
    assert result.stdout == (
        "Pokémon: 4\n4 Pikachu ex ZZZ 57\n\nTrainer: 8\n4 Mystery Newcard ABC 12\n"
        "4 Ultra Ball ASC 213\n\nTotal Cards: 12\n"
    )
    assert result.stderr == (
        "warning: new.txt: line 1 kept as written (the card database knows no set ZZZ; deckcheck db sync updates "
        "it).\nwarning: new.txt: line 2 kept as written (the card database knows no set ABC; deckcheck db sync "
        "updates it).\n"
    )


def test_db_status_without_a_database_exits_3(runner):
    result = run(runner, "db", "status", env={"DECKCHECK_DB": "/nonexistent/cards.json.gz"})
    assert result.exit_code == 3 and "card database not found at /nonexistent/cards.json.gz" in result.stderr


# -- what gets read --------------------------------------------------------------------------


def test_unreadable_files_are_that_decks_problem_and_the_run_goes_on(runner, repo):
    write(repo / "decks" / "a-binary.txt", b"4 Nest Ball SVI 181\n\x00\x01\x02")
    write(repo / "decks" / "b-latin1.txt", "4 Pokégear 3.0 SVI 186\n".encode("latin-1"))
    write(repo / "decks" / "c-huge.txt", "4 Nest Ball SVI 181\n" * (MAX_BYTES // 20 + 1))
    write(repo / "decks" / "d-long.txt", "\n" * 10 + "1 Nest Ball SVI 181\n" * MAX_LINES)
    write(repo / "decks" / "e-valid.txt", VALID)
    result = run(runner, "check", "decks", "--as-of", ON)
    assert result.exit_code == 1
    assert result.stdout == (
        "decks/a-binary.txt: unreadable-file The file is binary (it contains NUL bytes), not a text decklist; "
        "it was not checked.\n"
        "decks/b-latin1.txt: unreadable-file The file is not UTF-8 text (byte 0xe9 at offset 5); save it as "
        "UTF-8 to have it checked.\n"
        "decks/c-huge.txt: input-limit The file is larger than 64 KiB, the most a decklist may be; it was not "
        "checked.\n"
        "decks/d-long.txt: input-limit The file has 1,010 lines; a decklist may have at most 1,000, so it was "
        "not checked.\n"
        "Checked 5 decks: 1 passed, 4 failed (4 errors).\n"
    )
    docs = json.loads(run(runner, "check", "decks", "--as-of", ON, "--output-format", "json").stdout)
    assert [(d["problems"][0]["code"] if d["problems"] else None) for d in docs] == [
        "P104",
        "P104",
        "P103",
        "P103",
        None,
    ]
    assert docs[0]["cards"] == [] and docs[0]["format"] == "standard" and docs[0]["as_of"] == ON


def test_limits_are_inclusive(runner, repo):
    # padded with one blank line of spaces: exactly MAX_BYTES bytes, well under the line limit
    write(repo / "exact.txt", VALID + " " * (MAX_BYTES - len(VALID.encode())))
    result = run(runner, "check", "exact.txt", "--as-of", ON)
    assert result.exit_code == 0, result.stdout


def test_folders_are_searched_for_txt_and_json_skipping_hidden_folders(runner, repo):
    write(repo / "decks" / "b.txt", VALID)
    write(
        repo / "decks" / "sub" / "a.json",
        '{"cards": [{"count": 4, "name": "Nest Ball", "set": "SVI", "number": "181"}]}',
    )
    write(repo / "decks" / "notes.md", "not a deck")
    write(repo / "decks" / ".hidden" / "c.txt", "junk")
    result = run(runner, "check", "decks", "decks/b.txt", "--as-of", ON, "--output-format", "json")
    assert [d["path"] for d in json.loads(result.stdout)] == ["decks/b.txt", "decks/sub/a.json"]


def test_no_paths_means_the_working_directory(runner, repo):
    write(repo / "deck.txt", VALID)
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert [d["path"] for d in json.loads(result.stdout)] == ["deck.txt"]


def test_empty_folder_warns_and_passes(runner, repo):
    (repo / "decks").mkdir()
    result = run(runner, "check", "decks", "--as-of", ON)
    assert result.exit_code == 0
    assert result.stderr == "warning: no decklists found (looked for *.txt, *.json)\n"
    assert result.stdout == "No decklists checked.\n"


def test_stdin(runner, repo):
    result = run(runner, "check", "-", "--as-of", ON, input="5 Nest Ball SVI 181\n")
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0] == (
        "<stdin>: deck-size Your deck has 5 cards; it must have exactly 60 (add 55)."
    )


def test_paths_outside_the_working_directory_are_absolute(runner, repo, tmp_path_factory):
    elsewhere = write(tmp_path_factory.mktemp("elsewhere") / "d.txt", VALID)
    docs = json.loads(run(runner, "check", str(elsewhere), "--as-of", ON, "--output-format", "json").stdout)
    assert docs[0]["path"] == elsewhere.as_posix()


# -- configuration ---------------------------------------------------------------------------


def test_pyproject_defaults_and_overrides(runner, repo):
    write(
        repo / "pyproject.toml",
        '[project]\nname = "x"\n\n[tool.deckcheck]\nformat = "expanded"\n'
        'as-of = 2026-05-01\n\n[tool.deckcheck.overrides]\n"glc/**" = "glc"\n'
        '"old/*.txt" = { format = "unlimited", as-of = "2024-06-01" }\n',
    )
    for where in ("a.txt", "glc/b.txt", "glc/deep/c.txt", "old/d.txt"):
        write(repo / where, VALID)
    docs = json.loads(run(runner, "check", ".", "--output-format", "json").stdout)
    assert [(d["path"], d["format"], d["as_of"]) for d in docs] == [
        ("a.txt", "expanded", ON),
        ("glc/b.txt", "glc", ON),
        ("glc/deep/c.txt", "glc", ON),
        ("old/d.txt", "unlimited", "2024-06-01"),
    ]
    # the command line wins over the file and its overrides
    docs = json.loads(
        run(runner, "check", ".", "--format", "standard", "--as-of", "2026-04-01", "--output-format", "json").stdout
    )
    assert {(d["format"], d["as_of"]) for d in docs} == {("standard", "2026-04-01")}


def test_deckcheck_toml_is_found_from_a_subfolder_and_wins_over_pyproject(runner, repo, monkeypatch):
    write(repo / "pyproject.toml", '[tool.deckcheck]\nformat = "unlimited"\n')
    write(
        repo / "deckcheck.toml",
        'format = "expanded"\nas-of = "2026-05-01"\nfail-on = "warning"\nexclude = ["drafts"]\n',
    )
    write(repo / "decks" / "a.txt", VALID.replace("Total Cards: 60", "Total Cards: 59"))
    write(repo / "decks" / "drafts" / "b.txt", "junk")
    monkeypatch.chdir(repo / "decks")
    result = run(runner, "check", ".", "drafts/b.txt", "--output-format", "json")
    docs = json.loads(result.stdout)
    assert [(d["path"], d["format"]) for d in docs] == [("a.txt", "expanded")]
    assert result.exit_code == 1  # fail-on = "warning" from the file


def test_explicit_config_and_include(runner, repo):
    cfg = write(repo / "ci" / "deckcheck.toml", 'include = ["*.deck"]\n[overrides]\n"*.deck" = "glc"\n')
    write(repo / "ci" / "a.deck", VALID)
    write(repo / "ci" / "b.txt", VALID)
    docs = json.loads(run(runner, "check", "ci", "--config", str(cfg), "--as-of", ON, "--output-format", "json").stdout)
    assert [(d["path"], d["format"]) for d in docs] == [("ci/a.deck", "glc")]


def test_a_pyproject_without_our_table_is_passed_over(runner, repo, monkeypatch):
    write(repo / "deckcheck.toml", 'format = "glc"\n')
    write(repo / "sub" / "pyproject.toml", '[project]\nname = "x"\n')
    write(repo / "sub" / "a.txt", VALID)
    monkeypatch.chdir(repo / "sub")
    docs = json.loads(run(runner, "check", "a.txt", "--as-of", ON, "--output-format", "json").stdout)
    assert docs[0]["format"] == "glc"


def test_lookup_stops_at_the_repository_root(repo):
    inner = repo / "inner"  # a repository inside this test's folder: the file above it is outside it
    (inner / ".git").mkdir(parents=True)
    write(repo / "deckcheck.toml", 'format = "glc"\n')
    assert dconfig.find(inner) is None


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "pyproject.toml",
            '[tool.deckcheck]\nformt = "glc"\n',
            "pyproject.toml: unknown key 'formt' in [tool.deckcheck] (known: as-of, exclude, fail-on, format, include, "
            "max-db-age, overrides)",
        ),
        (
            "pyproject.toml",
            "[tool.deckcheck]\nas_of = 2026-05-01\n",
            "pyproject.toml: unknown key 'as_of' in [tool.deckcheck]; did you mean 'as-of'?",
        ),
        ("deckcheck.toml", 'format = "nope"\n', "deckcheck.toml: format: unknown format 'nope' (known: {known})"),
        (
            "deckcheck.toml",
            '[overrides]\n"glc/**" = "glcc"\n',
            "deckcheck.toml: overrides.\"glc/**\": unknown format 'glcc' (known: {known})",
        ),
        (
            "deckcheck.toml",
            '[overrides]\n"glc/**" = {{ fromat = "glc" }}\n',
            "deckcheck.toml: unknown key 'fromat' in overrides.\"glc/**\" (known: as-of, format)",
        ),
        ("deckcheck.toml", 'as-of = "2026-13-01"\n', "deckcheck.toml: as-of: '2026-13-01' is not a date (YYYY-MM-DD)"),
        ("deckcheck.toml", "as-of = 20260501\n", "deckcheck.toml: as-of: 20260501 is not a date (YYYY-MM-DD)"),
        ("deckcheck.toml", 'fail-on = "info"\n', "deckcheck.toml: fail-on: must be one of error, warning, not 'info'"),
        ("deckcheck.toml", 'include = "*.txt"\n', 'deckcheck.toml: include: must be a list of globs, e.g. ["*.txt"]'),
        ("deckcheck.toml", "format = \n", "deckcheck.toml: cannot be read as TOML: "),
        (
            "deckcheck.toml",
            "max-db-age = -1\n",
            "deckcheck.toml: max-db-age: must be a whole number of days >= 0, not -1",
        ),
        (
            "deckcheck.toml",
            'max-db-age = "90"\n',
            "deckcheck.toml: max-db-age: must be a whole number of days >= 0, not '90'",
        ),
    ],
    ids=[
        "unknown-key",
        "snake-case-key",
        "format",
        "override-format",
        "override-key",
        "date",
        "date-type",
        "fail-on",
        "include-type",
        "bad-toml",
        "max-db-age",
        "max-db-age-type",
    ],
)
def test_config_errors_are_usage_errors_naming_file_and_key(runner, repo, name, text, message):
    write(repo / name, text.replace("{{", "{").replace("}}", "}"))
    write(repo / "a.txt", VALID)
    result = run(runner, "check", "a.txt", "--as-of", ON)
    assert result.exit_code == 2
    assert "Error: " + message.format(known=known_formats()) in result.stderr


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("glc/**", "glc/a.txt", True),
        ("glc/**", "glc/x/y/a.txt", True),
        ("glc/**", "other/glc/a.txt", False),
        ("glc/", "glc/a.txt", True),
        ("**/glc/*.txt", "x/glc/a.txt", True),
        ("**/glc/*.txt", "glc/a.txt", True),
        ("*.txt", "deep/down/a.txt", True),  # no slash: the name anywhere
        ("*.txt", "a.json", False),
        ("deck?.txt", "deck1.txt", True),
        ("[!a]*.txt", "a.txt", False),
        ("/top.txt", "top.txt", True),
        ("/top.txt", "sub/top.txt", False),
    ],
    ids=lambda v: str(v),
)
def test_globs(glob, path, matches):
    assert globs.Pattern.of(glob).matches(path, path.rsplit("/", 1)[-1]) is matches


# -- fmt ---------------------------------------------------------------------------------------


def test_fmt_prints_a_clean_export_and_is_idempotent(runner, repo):
    messy = write(
        repo / "messy.txt",
        "2 Nest Ball SVI 181\n1 Nest Ball SVI 181\n4 Basic Fire Energy\n"
        "Pokémon: 1\n3 Dreepy TWM 128\n1 Dreepy TWM 128\n",
    )
    result = run(runner, "fmt", "messy.txt")
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout == (
        "Pokémon: 4\n4 Dreepy TWM 128\n\nTrainer: 3\n3 Nest Ball SVI 181\n\nEnergy: 4\n"
        "4 Basic {R} Energy MEE 2\n\nTotal Cards: 11\n"
    )
    messy.write_text(result.stdout, encoding="utf-8")
    assert run(runner, "fmt", "messy.txt").stdout == result.stdout


@pytest.mark.parametrize("deck", sorted(p.name for p in DECKS.glob("*.txt")))
def test_fmt_of_fmt_is_fmt(runner, repo, deck):
    once = run(runner, "fmt", str(DECKS / deck)).stdout
    write(repo / "once.txt", once)
    assert run(runner, "fmt", "once.txt").stdout == once


def test_fmt_write_rewrites_atomically_keeping_mode_and_line_endings(runner, repo):
    deck = write(repo / "d.txt", b"2 Nest Ball SVI 181\r\n2 Nest Ball SVI 181\r\n")
    deck.chmod(0o640)
    result = run(runner, "fmt", "--write", "d.txt")
    assert (result.exit_code, result.stdout, result.stderr) == (0, "", "d.txt: reformatted.\n")
    assert deck.read_bytes() == b"Trainer: 4\r\n4 Nest Ball SVI 181\r\n\r\nTotal Cards: 4\r\n"
    assert stat.S_IMODE(deck.stat().st_mode) == 0o640
    assert sorted(p.name for p in repo.iterdir()) == [".git", "d.txt"]  # no temporary file left
    before = deck.stat().st_mtime_ns
    assert run(runner, "fmt", "-w", "d.txt").stderr == "d.txt: already formatted.\n"
    assert deck.stat().st_mtime_ns == before


def test_fmt_write_refuses_to_drop_lines(runner, repo):
    original = "Great deck!\n4 Nest Ball SVI 181\n0 Iono PAL 185\n"
    deck = write(repo / "d.txt", original)
    result = run(runner, "fmt", "--write", "d.txt")
    assert result.exit_code == 1
    assert result.stderr == (
        "Error: d.txt: lines 1, 3 would be lost (not card lines); nothing was written. Fix or remove them first.\n"
    )
    assert deck.read_text(encoding="utf-8") == original
    shown = run(runner, "fmt", "d.txt")
    assert shown.exit_code == 0 and shown.stderr == "warning: d.txt: lines 1, 3 left out (not card lines).\n"


def test_fmt_usage_errors(runner, repo):
    write(repo / "d.json", '{"cards": [{"count": 4, "name": "Nest Ball", "set": "SVI", "number": "181"}]}')
    result = run(runner, "fmt", "--write", "d.json")
    assert result.exit_code == 2 and "d.json is a JSON deck; --write only rewrites text lists" in result.stderr
    assert run(runner, "fmt", "d.json").stdout == "Trainer: 4\n4 Nest Ball SVI 181\n\nTotal Cards: 4\n"
    result = run(runner, "fmt", "--write", "-", input="4 Nest Ball SVI 181\n")
    assert result.exit_code == 2 and "--write needs a file, not -" in result.stderr
    write(repo / "bin.txt", b"\x00\x01")
    result = run(runner, "fmt", "bin.txt")
    assert result.exit_code == 1 and result.stderr.startswith("Error: bin.txt: The file is binary")


# -- cards -------------------------------------------------------------------------------------


def test_cards_by_printing(runner):
    result = run(runner, "cards", "SVI", "181", "--as-of", ON)
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[:2] == [f"Legality on {ON}:", "Nest Ball (SVI 181)  Trainer Item  mark G"]
    assert "standard: not legal" in lines[2] and "expanded: legal" in lines[2]


def test_cards_by_name_as_json(runner):
    result = run(runner, "cards", "Nest Ball", "--as-of", ON, "--json", "--limit", "3")
    doc = json.loads(result.stdout)
    assert doc["as_of"] == ON and 1 <= len(doc["cards"]) <= 3
    first = doc["cards"][0]
    assert first["name"] == "Nest Ball" and set(first["legality"]) == set(default_formats())
    assert set(first["legality"]["standard"]) == {"legal", "banned", "legal_via"}


def test_cards_without_a_match_exits_1(runner):
    result = run(runner, "cards", "zzzzqqqqxxxx", "--as-of", ON)
    assert result.exit_code == 1 and result.stderr == "No card matches 'zzzzqqqqxxxx'.\n"


# -- progress bar --------------------------------------------------------------------------------


class _Stream:
    def __init__(self, tty: bool):
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize(
    ("count", "quiet", "tty", "shown"),
    [
        (21, False, True, True),
        (20, False, True, False),
        (500, False, False, False),
        (500, True, True, False),
    ],
    ids=["long-on-a-terminal", "short", "piped", "quiet"],
)
def test_progress_bar_only_for_long_runs_on_a_terminal(count, quiet, tty, shown):
    assert show_progress(count, quiet, _Stream(tty)) is shown


def _many_decks(folder: Path, n: int = 25) -> Path:
    for i in range(n):
        write(folder / "decks" / f"d{i:02d}.txt", "4 Nest Ball SVI 181\n")
    return folder / "decks"


def test_no_progress_bar_when_piped(runner, repo):
    result = run(runner, "check", str(_many_decks(repo)), "--as-of", ON)
    assert result.stderr == "" and "Checking decklists" not in result.output


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_progress_bar_on_a_terminal(tmp_path):
    import pty

    folder = _many_decks(tmp_path)
    main, secondary = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "deckcheck", "check", str(folder), "--as-of", ON, "--output-format", "json"],
            stdout=subprocess.PIPE,
            stderr=secondary,
            cwd=tmp_path,
            timeout=120,
        )
        os.close(secondary)
        drawn = b""
        while True:
            try:
                chunk = os.read(main, 4096)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(main)
    assert proc.returncode == 1 and len(json.loads(proc.stdout)) == 25
    assert b"Checking decklists" in drawn and b"100%" in drawn


# -- as a real process ---------------------------------------------------------------------------


@pytest.mark.slow
def test_real_process_exit_codes_and_output():
    env = {k: v for k, v in os.environ.items() if k != "DECKCHECK_DB"}
    cmd = [sys.executable, "-m", "deckcheck", "check", "decks", "--as-of", ON]
    proc = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert proc.stdout == (GOLDEN / "decks.text").read_text(encoding="utf-8")  # piped: no colour
    missing = subprocess.run(
        cmd, cwd=HERE, capture_output=True, text=True, timeout=120, env={**env, "DECKCHECK_DB": "/nonexistent.json.gz"}
    )
    assert missing.returncode == 3 and missing.stderr.startswith("Error: card database not found")
    usage = subprocess.run(cmd + ["--format", "nope"], cwd=HERE, capture_output=True, text=True, env=env, timeout=120)
    assert usage.returncode == 2 and "unknown format 'nope'" in usage.stderr


# -- GitHub Action and pre-commit hook -------------------------------------------------------------

# the GitHub Action (action.yml, scripts/action.sh) is tested in tests/cli/test_action.py


def _hooks() -> list[dict]:
    return yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        },
    )


def _deck_repo(path: Path) -> Path:
    """A git repository with a valid deck, an invalid one and a text file the hook must leave alone."""
    write(path / "decks" / "good.txt", VALID)
    write(path / "decks" / "standard" / "bad.txt", VALID.replace("3 Boss's Orders", "5 Boss's Orders"))
    write(path / "requirements.txt", "flask\n")
    write(path / "decks" / "README.txt", PROSE)  # prose beside the decks: skipped, never a failure
    write(path / "deckcheck.toml", f'as-of = "{ON}"\n')
    _git(path, "init", "-q")
    _git(path, "add", ".")
    return path


def _pre_commit(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900
    )


@pytest.mark.slow
def test_pre_commit_hook_definition_runs_for_real(tmp_path):
    """The published hook (entry, files, serial) run by pre-commit itself, as a local system hook.

    ``language: system`` reuses the deckcheck installed here instead of building
    the hook's own virtualenv; ``test_pre_commit_try_repo`` covers that install.
    """
    hook = dict(_hooks()[0], language="system")
    work = _deck_repo(tmp_path / "work")
    write(work / ".pre-commit-config.yaml", yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}))
    proc = _pre_commit("run", "--all-files", cwd=work, home=tmp_path / "home")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "deckcheck" in proc.stdout and "Failed" in proc.stdout
    assert "decks/standard/bad.txt:17: copy-limit You have 5 cards named Boss's Orders" in proc.stdout
    assert "Checked 2 decks: 1 passed, 1 failed" in proc.stdout  # requirements.txt left alone
    _git(work, "rm", "-q", "--cached", "decks/standard/bad.txt")
    (work / "decks" / "standard" / "bad.txt").unlink()
    proc = _pre_commit("run", "--all-files", cwd=work, home=tmp_path / "home")
    assert proc.returncode == 0 and "Passed" in proc.stdout, proc.stdout


@pytest.mark.slow
@pytest.mark.skipif(
    os.environ.get("DECKCHECK_INSTALL_TESTS") != "1",
    reason="pip-installs the hook (about 30 s, needs the package index): DECKCHECK_INSTALL_TESTS=1",
)
@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs this repository's git history")
def test_pre_commit_try_repo(tmp_path):
    """``pre-commit try-repo`` at this repository's HEAD: the hook pip-installed into its own virtualenv.

    This is what users of the hook get; it pins the committed state (HEAD),
    not uncommitted edits in the working tree.
    """
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    work = _deck_repo(tmp_path / "work")
    proc = _pre_commit(
        "try-repo", str(ROOT), "deckcheck", "--ref", head, "--all-files", cwd=work, home=tmp_path / "home"
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out
    assert "decks/standard/bad.txt:17: copy-limit You have 5 cards named Boss's Orders" in out, out
    assert "Checked 2 decks: 1 passed, 1 failed" in out


PROSE = "Our decks\n=========\n\nThese are the lists we play at league. Ask Sam before changing one.\n"


def test_prose_beside_the_decks_is_skipped_with_a_note(runner, repo):
    """Issue #31: a decks/README.txt was checked as a deck and failed CI."""
    write(repo / "decks" / "README.txt", PROSE)
    write(repo / "decks" / "notes.json", '{"owner": "league"}\n')
    write(repo / "decks" / "good.txt", VALID)
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", "jsonl")
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["path"] for line in result.stdout.splitlines()] == ["decks/good.txt"]
    assert result.stderr == (
        "note: skipped 2 files with no card line, not decklists (name one on the command line to check it): "
        "decks/README.txt, decks/notes.json\n"
    )
    assert run(runner, "check", "decks", "--as-of", ON, "-q").stderr == ""  # -q: no note
    # named, it is checked: the user asked for it
    result = run(runner, "check", "decks/README.txt", "--as-of", ON)
    assert result.exit_code == 1 and "decks/README.txt: deck-size" in result.stdout
    # unless asked to treat named files as found ones (the pre-commit hook names every changed file)
    result = run(runner, "check", "decks/README.txt", "decks/good.txt", "--as-of", ON, "--skip-non-decks")
    assert result.exit_code == 0 and "Checked 1 deck: all passed." in result.stdout
    # a JSON deck that does not parse, or whose entries are all wrong, is a broken deck, not prose
    write(repo / "decks" / "broken.json", '{"cards": [{"count": 4, "name": "Iono"}\n')
    write(repo / "decks" / "counts.json", '{"cards": [{"count": "four", "name": "Iono"}]}\n')
    result = run(runner, "check", "decks", "--as-of", ON)
    assert result.exit_code == 1, result.output
    assert "decks/broken.json:1: unparsed-line (warning) The deck starts with { but is not valid JSON" in result.stdout
    assert "decks/counts.json:1: unparsed-line (warning) Entry 1 of the JSON deck has count" in result.stdout
    (repo / "decks" / "broken.json").unlink()
    (repo / "decks" / "counts.json").unlink()
    # a deck of unknown cards has card lines: still a deck, still failing
    write(repo / "decks" / "typo.txt", "4 Pikachuu\n")
    result = run(runner, "check", "decks", "--as-of", ON, "-q")
    assert result.exit_code == 1 and "decks/typo.txt:1: unknown-card" in result.stdout
