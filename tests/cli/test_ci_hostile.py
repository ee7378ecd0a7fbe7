"""``deckcheck check`` on a hostile repository: files and folders named and nested by an attacker.

Issue #27, rows 6, 7 and 14: a file name that is not UTF-8 (every output format, as the Action runs it),
ignore globs that make a backtracking matcher run for minutes, a deck nested deeper than the system lets
a path be. A pull request controls all of these, so none may crash the run, hang it or hide a deck.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import quote

import pathspec
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from deckcheck.cli import cli
from deckcheck.cli import globs as dglobs
from deckcheck.cli import repoconfig as dconfig
from deckcheck.cli.common import printable_path
from deckcheck.problems import Counts, Problem, Report
from deckcheck.render import OUTPUT_FORMATS, Options, github_summary, render, render_github

HERE = Path(__file__).resolve().parent.parent / "cli"
VALID = (HERE / "decks" / "valid.txt").read_text(encoding="utf-8")
ON = "2026-05-01"
#: what a run that is not a usage error may exit with (README, "exit code")
RUN_EXITS = (0, 1)

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX file names (bytes) and path limits")


@pytest.fixture()
def repo(tmp_path, monkeypatch) -> Path:
    """An empty folder that looks like a repository root (config lookup stops here)."""
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def report(problems: list[Problem]) -> Report:
    return Report(
        format="standard", format_name="Standard", as_of=ON, problems=problems, lines=[], counts=Counts(), database={}
    )


def run(runner, *args: str, **kw):
    return runner.invoke(cli, list(args), catch_exceptions=False, **kw)


def deckcheck(*args: str, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """The command as the Action runs it: a real process, its output bytes as the runner reads them."""
    return subprocess.run(
        [sys.executable, "-m", "deckcheck", "check", *args],
        cwd=cwd,
        capture_output=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def parses(output_format: str, text: str) -> None:
    """The output is a whole document of its format (text and github: lines of valid Unicode)."""
    if output_format in ("json", "sarif"):
        json.loads(text)
    elif output_format == "jsonl":
        for line in text.split("\n")[:-1]:  # "\n" ends a record; U+2028 in a name does not
            json.loads(line)
    elif output_format == "junit":
        ET.fromstring(text.encode())
    text.encode("utf-8")  # strict: no lone surrogate


# -- row 6: a file name that is not UTF-8 ------------------------------------------------------------

NOT_UTF8 = b"decks/\xff\xfe-\xed\xa0\x80-deck.txt"  # two stray bytes, then an encoded surrogate
SHOWN = "decks/\\xff\\xfe-\\xed\\xa0\\x80-deck.txt"


def test_a_file_name_that_is_not_utf8_run_as_the_action_runs_it(tmp_path):
    """Before: a TypeError traceback, the report file empty, no step outputs, no summary."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "decks").mkdir()
    with open(os.path.join(os.fsencode(tmp_path), NOT_UTF8), "wb") as fh:
        fh.write(VALID.replace("3 Boss's Orders", "5 Boss's Orders").encode())
    report, outputs, summary = tmp_path / "r.json", tmp_path / "out", tmp_path / "summary.md"
    env = {"GITHUB_OUTPUT": str(outputs), "GITHUB_STEP_SUMMARY": str(summary)}
    proc = deckcheck(
        "decks", "--as-of", ON, "--output-format", "github", "--report", f"json={report}", cwd=tmp_path, env=env
    )
    assert proc.returncode == 1, proc.stderr
    assert b"Traceback" not in proc.stderr
    out = proc.stdout.decode("utf-8")
    assert f"::error file={SHOWN},line=17,title=copy-limit (R102)::You have 5 cards named Boss's Orders" in out
    assert [d["path"] for d in json.loads(report.read_text(encoding="utf-8"))] == [SHOWN]
    assert outputs.read_text(encoding="utf-8") == "valid=false\nchecked-count=1\ninvalid-count=1\n"
    assert "decks/\\\\xff\\\\xfe\\-\\\\xed\\\\xa0\\\\x80\\-deck.txt" in summary.read_text(encoding="utf-8")
    for output_format in OUTPUT_FORMATS:
        proc = deckcheck("decks", "--as-of", ON, "--output-format", output_format, cwd=tmp_path)
        assert proc.returncode == 1, (output_format, proc.stderr)
        text = proc.stdout.decode("utf-8")
        parses(output_format, text)
        # as written (text, github, junit), in a JSON string, or in a URI (SARIF's artifact location)
        assert any(form in text for form in (SHOWN, json.dumps(SHOWN)[1:-1], quote(SHOWN))), output_format


def test_printable_path_escapes_each_stray_byte_and_keeps_the_rest():
    assert printable_path(os.fsdecode(b"d/\xff-\xc3\xa9-\xe2\x82")) == "d/\\xff-é-\\xe2\\x82"
    assert printable_path("plain/é.txt") == "plain/é.txt"
    assert printable_path("\ud800") == "\\ud800"  # not from a file name: shown as its code point


names = st.binary(min_size=1, max_size=40).filter(lambda b: b"/" not in b and b"\0" not in b and b not in (b".", b".."))


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(name=names, content=st.binary(max_size=300) | st.text(max_size=300).map(lambda t: t.encode("utf-8")))
def test_any_file_name_and_content_every_format_and_report(runner, repo, name, content):
    """Arbitrary bytes as a file's name (every byte but ``/`` and NUL) and as its content: every output
    format and every ``--report`` file is whole and valid Unicode, no traceback, exit 0 or 1."""
    folder = os.path.join(os.fsencode(repo), b"decks")
    for old in os.listdir(folder) if os.path.isdir(folder) else ():
        os.unlink(os.path.join(folder, old))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name + b".txt"), "wb") as fh:
        fh.write(content)
    reports = [f"{fmt}={repo / ('report.' + fmt)}" for fmt in OUTPUT_FORMATS]
    for output_format in OUTPUT_FORMATS:
        args = ["check", "decks", "--as-of", ON, "--output-format", output_format]
        result = runner.invoke(cli, [*args, *(a for r in reports for a in ("--report", r))])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert result.exit_code in RUN_EXITS, result.output
        parses(output_format, result.stdout)
        for fmt in OUTPUT_FORMATS:
            parses(fmt, (repo / f"report.{fmt}").read_text(encoding="utf-8"))


# -- row 7: ignore globs matched in linear time ------------------------------------------------------

#: globs a backtracking matcher takes polynomial (or exponential) time over, each with a name that makes
#: it try every split; the last field of each: one name of NAME_MAX (255 bytes), the longest a folder holds
HOSTILE = [
    ("*a*a*a*a*a*a*a*a*a*a*a*a*a*ab", "a" * 251 + ".txt"),
    ("**/*a*a*a*a*a*a*a*a*a*a*ab/**", "a" * 251 + ".txt"),
    ("*?*?*?*?*?*?*?*?*?*?*?*?*?*?!", "x" * 251 + ".txt"),
    ("[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*[a-z]*0", "q" * 251 + ".txt"),
]
#: a run whose matching is linear takes well under a second here (0.05 s); a backtracking one, minutes
BOUND_SECONDS = 20
#: the same for a megabyte of patterns, about 1.2 s here when linear (RE2 sets of SET_SIZE)
LARGE_BOUND_SECONDS = 120


@pytest.mark.parametrize(("glob", "name"), HOSTILE, ids=["stars", "globstars", "questions", "classes"])
@pytest.mark.parametrize("where", ["gitignore", "exclude", "override", "command line"])
def test_hostile_globs_are_matched_in_linear_time(runner, repo, glob, name, where):
    """Before: ``*a*a*…ab`` in a .gitignore against a 200-character name ran past 60 s."""
    (repo / "decks").mkdir()
    (repo / "decks" / name).write_text(VALID, encoding="utf-8")
    args = ["check", "--as-of", ON, "--output-format", "json"]
    if where == "gitignore":
        (repo / ".gitignore").write_text(glob + "\n", encoding="utf-8")
    elif where == "exclude":
        (repo / "deckcheck.toml").write_text(f"exclude = [{json.dumps(glob)}]\n", encoding="utf-8")
    elif where == "override":
        (repo / "deckcheck.toml").write_text(f"[overrides]\n{json.dumps(glob)} = 'glc'\n", encoding="utf-8")
    else:
        args.insert(1, "decks/" + glob.replace("**/", "").replace("/**", "").replace("!", "t"))
    start = time.perf_counter()
    result = runner.invoke(cli, args)
    assert time.perf_counter() - start < BOUND_SECONDS
    assert result.exit_code in (0, 1, 2), result.output  # a glob on the command line may match nothing


def test_the_linear_matcher_is_pathspec_s_git_rules():
    """A .gitignore still means what it meant: the example of pathspec's own rules, matched by RE2."""
    rules = dglobs.IgnoreRules(["*.draft.txt", "drafts/", "!keep.txt", "/top.txt", "a/**/z.txt", "[!x]?.json"])
    said = {
        path: rules.decides(path)
        for path in (
            "x.draft.txt",
            "d/x.draft.txt",
            "drafts/",
            "d/drafts/",
            "drafts",
            "keep.txt",
            "top.txt",
            "d/top.txt",
            "a/z.txt",
            "a/b/c/z.txt",
            "ab.json",
            "xb.json",
            "d\udcff.draft.txt",
        )
    }
    assert said == {
        "x.draft.txt": True,
        "d/x.draft.txt": True,
        "drafts/": True,
        "d/drafts/": True,
        "drafts": None,
        "keep.txt": False,
        "top.txt": True,
        "d/top.txt": None,
        "a/z.txt": True,
        "a/b/c/z.txt": True,
        "ab.json": True,
        "xb.json": None,
        "d\udcff.draft.txt": True,
    }


globs = st.lists(
    st.text(alphabet="ab*?/![]!-\\.", min_size=1, max_size=8).filter(lambda g: g.strip() and not g.startswith("#")),
    min_size=1,
    max_size=4,
)
paths = st.text(alphabet="ab/.-[]*", min_size=1, max_size=12).filter(lambda p: not p.startswith("/") and "//" not in p)


literal_globs = st.lists(
    st.text(alphabet="ab*?/![]^\\.- ", min_size=1, max_size=8).filter(lambda g: g.strip() and not g.startswith("#")),
    max_size=4,
)
#: relative paths as a walk makes them (no empty, "." or ".." part, no "/" at either end)
literal_paths = st.text(alphabet="ab/.-[]*!^\\ ", min_size=1, max_size=12).filter(
    lambda p: all(part not in ("", ".", "..") for part in p.split("/"))
)


@pytest.mark.parametrize(
    ("glob", "runs"),
    [
        ("requirements*.txt", ("requirements", ".txt")),
        ("node_modules/", ("node_modules",)),
        ("/top.txt", ("top.txt",)),
        ("a/**/b.json", ("a", "b.json")),
        ("*", ()),
        ("[ab]c", ("c",)),  # a set of characters is one of them, no run
        ("x[!]y]z", ("x", "z")),  # "]" first in a set is one of its characters
        ("x[^a]z", ("x", "z")),
        ("ab[c", ("ab",)),  # an unclosed bracket: nothing after it counts
        ("a\\*b", ("a", "b")),  # an escaped character is no run
        ("\\!keep", ("keep",)),
        ("two words", ("two", "words")),
        ("!keep.json", None),  # takes a match back: leaves nothing out
        ("#comment", None),
    ],
)
def test_glob_literals_are_the_runs_every_match_holds(glob, runs):
    assert dglobs.glob_literals(glob) == runs


@settings(max_examples=400)
@given(lines=literal_globs, path=literal_paths, outside=st.booleans())
@example(lines=["[a]"], path="a", outside=False)
@example(lines=["[!b]a*"], path="x/aab", outside=True)
@example(lines=["a\\*b"], path="a*b", outside=False)
def test_a_glob_matches_only_paths_that_hold_its_literals(lines, path, outside):
    """What Config.excluded skips pathspec on: a path a glob leaves out holds every run glob_literals names."""
    relative, name = (None, path.rsplit("/", 1)[-1]) if outside else (path, path.rsplit("/", 1)[-1])
    for glob, pattern in zip(lines, patterns_of_each(lines), strict=True):
        if pattern is not None and pattern.include and pattern.matches(relative, name):
            runs = dglobs.glob_literals(glob)
            assert runs is not None and all(run in (name if outside else path) for run in runs), (glob, runs)


@settings(max_examples=300)
@given(lines=literal_globs, path=literal_paths, folder=st.booleans())
def test_excluded_answers_as_every_pattern_in_order_does(lines, path, folder):
    """The built-in excludes, then the file's: the last that matches decides, with or without the literals
    letting a path through unasked."""
    exclude = tuple(p for p in patterns_of_each(lines) if p is not None)
    config = dconfig.Config(root=Path("/r"), exclude=exclude)
    relative = path + "/" if folder else path
    name = path.rstrip("/").rsplit("/", 1)[-1]
    deciding = [p for p in dconfig.builtin_exclude() + exclude if p.matches(relative, name)]
    assert config.excluded("/r/" + path, folder=folder) is (bool(deciding) and deciding[-1].include)


def patterns_of_each(lines: list[str]) -> list[dglobs.Pattern | None]:
    """Each glob's pattern, None for one that is no valid glob."""
    out: list[dglobs.Pattern | None] = []
    for line in lines:
        try:
            out.append(dglobs.Pattern.of(line))
        except ValueError:
            out.append(None)
    return out


@settings(max_examples=300)
@given(lines=globs, path=paths)
def test_re2_decides_as_pathspec_s_own_engine_does(lines, path):
    """On globs and paths too small to backtrack for long, RE2 decides as Python's re on pathspec's own
    patterns (the last pattern that matches decides): the engine changed, not the rules."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        try:
            theirs = pathspec.GitIgnoreSpec.from_lines(lines, backend="simple").patterns
        except (re.error, ValueError):
            return  # a line no pattern can be made of: ours skips it, theirs refuses the file
    decided = None
    for pattern in theirs:
        if pattern.include is not None and pattern.regex.match(path):
            decided = pattern.include
    assert dglobs.IgnoreRules(lines).decides(path) == decided


def test_a_megabyte_of_hostile_gitignore_lines_is_read_in_bounded_time(runner, repo):
    """30,000 star-heavy lines: more than RE2 builds in one set within its memory budget. Before the
    chunking: a traceback after a minute ("failed to compile Set"); the last lines still decide."""
    lines = [f"*a*a*a*a*a*a*a*a*a*a*a*a*ab{i}" for i in range(30_000)]
    (repo / "decks").mkdir()
    for name in ("a" * 251 + ".txt", "keep.txt", "drop.txt"):
        (repo / "decks" / name).write_text(VALID, encoding="utf-8")
    (repo / ".gitignore").write_text("\n".join([*lines, "drop.txt"]) + "\n", encoding="utf-8")
    start = time.perf_counter()
    result = run(runner, "check", "--as-of", ON, "--output-format", "jsonl")
    assert time.perf_counter() - start < LARGE_BOUND_SECONDS
    assert result.exit_code == 0
    assert sorted(json.loads(line)["path"] for line in result.stdout.splitlines()) == [
        "decks/" + "a" * 251 + ".txt",
        "decks/keep.txt",
    ]


def test_ten_thousand_hostile_config_globs_are_matched_in_bounded_time(runner, repo):
    globs = [f"*a*a*a*a*a*a*a*a*a*a*a*a*ab{i}" for i in range(10_000)] + ["drop.txt"]
    (repo / "decks").mkdir()
    for name in ("a" * 251 + ".txt", "drop.txt"):
        (repo / "decks" / name).write_text(VALID, encoding="utf-8")
    (repo / "deckcheck.toml").write_text(f"exclude = {json.dumps(globs)}\n", encoding="utf-8")
    start = time.perf_counter()
    result = runner.invoke(cli, ["check", "decks", "--as-of", ON, "--output-format", "jsonl"])
    assert time.perf_counter() - start < LARGE_BOUND_SECONDS
    assert result.exit_code == 0, result.output
    assert [json.loads(line)["path"] for line in result.stdout.splitlines()] == ["decks/" + "a" * 251 + ".txt"]


# -- row 14: a folder the system will not open ------------------------------------------------------


def nest(top: Path, depth: int, name: str = "folder") -> Path:
    """``top/name/name/…`` ``depth`` folders deep (made a folder at a time: the path outgrows PATH_MAX)."""
    here = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir(name, dir_fd=here)
            inner = os.open(name, os.O_RDONLY, dir_fd=here)
            os.close(here)
            here = inner
        fd = os.open("deck.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=here)
        os.write(fd, VALID.encode())
        os.close(fd)
    finally:
        os.close(here)
    return top


def _listed(fd: int) -> tuple[list[str], list[str]]:
    """(folders, other names) in the folder open as ``fd``."""
    with os.scandir(fd) as it:
        entries = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
    return [n for n, d in entries if d], [n for n, d in entries if not d]


def unnest(top: Path) -> None:
    """Remove what :func:`nest` made, a folder at a time from the bottom (``shutil.rmtree`` recurses a
    frame a folder, and pytest's clean-up of old temporary folders would fail on it in a later run)."""
    chain = [os.open(top, os.O_RDONLY)]
    try:
        while True:
            folders, files = _listed(chain[-1])
            for name in files:
                os.unlink(name, dir_fd=chain[-1])
            if not folders:
                break
            chain.append(os.open(folders[0], os.O_RDONLY, dir_fd=chain[-1]))
        while len(chain) > 1:
            os.close(chain.pop())
            folders, _ = _listed(chain[-1])
            os.rmdir(folders[0], dir_fd=chain[-1])
    finally:
        for fd in chain:
            os.close(fd)


@pytest.fixture()
def deep(repo):
    """Folders under the repository that :func:`nest` fills, removed afterwards without recursion."""
    made: list[Path] = []

    def make(name: str, depth: int, folder: str = "folder") -> Path:
        top = repo / name
        top.mkdir()
        made.append(top)
        return nest(top, depth, folder)

    yield make
    for top in made:
        unnest(top)


def test_a_deck_1000_folders_deep_is_a_problem_in_every_format(runner, repo, deep):
    """Before: "No decklists checked", exit 0: the folder past PATH_MAX was skipped silently."""
    deep("decks", 1000)
    for output_format in OUTPUT_FORMATS:
        result = run(runner, "check", "decks", "--as-of", ON, "--output-format", output_format)
        assert result.exit_code == 1, (output_format, result.output)
        assert "unreachable-path" in result.stdout, output_format
        parses(output_format, result.stdout)
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", "jsonl")
    (doc,) = [json.loads(line) for line in result.stdout.splitlines()]
    (problem,) = doc["problems"]
    assert (problem["rule"], problem["code"], problem["severity"]) == ("unreachable-path", "P116", "error")
    assert problem["message"].startswith("The folder could not be opened: File name too long (its path is ")
    assert problem["message"].endswith("; the decklists in it were not checked.")
    assert doc["path"].startswith("decks/folder/") and len(os.fsencode(doc["path"])) >= os.pathconf("/", "PC_PATH_MAX")


def test_a_glob_over_a_deep_tree_neither_recurses_nor_skips(runner, repo, deep):
    """Before: a RecursionError traceback (os.walk recursed a frame a folder) for ``decks/**/*.txt``."""
    deep("decks", 1000, "d")  # short names: 2,000 bytes, every folder can be opened
    result = run(runner, "check", "decks/**/*.txt", "--as-of", ON, "--output-format", "jsonl")
    assert result.exit_code == 0, result.output
    (doc,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert doc["path"] == "decks/" + "d/" * 1000 + "deck.txt" and doc["valid"]
    deep("long", 1000)
    result = run(runner, "check", "long/**/*.txt", "--as-of", ON, "--output-format", "jsonl")
    assert result.exit_code == 1
    assert [json.loads(line)["problems"][0]["rule"] for line in result.stdout.splitlines()] == ["unreachable-path"]


# -- row 5: no text of a deck or a file name is read as a workflow command ---------------------------

#: an annotation deckcheck means: its properties escaped, the message after the first ``::``
OUR_COMMAND = re.compile(r"^::(error|warning|notice) file=[^:,]*,line=\d+,title=[^:,]+::")


def no_command(line: str) -> bool:
    """Is the line one of our annotations with no ``##[`` in it, or text no runner reads as a command?
    (The runner takes a line that starts with ``::`` after spaces, and ``##[`` anywhere in a line.)"""
    if "##[" in line:
        return False
    return bool(OUR_COMMAND.match(line)) or "::" not in line


HIJACKS = [
    "##[add-mask]hunter2",
    "##[error title=X]forged failure",
    "##[set-output name=valid;]true",
    "::set-output name=valid::true",
    "  ::error::forged",
    ":::warning::x",
    "###[group]x",
]


def test_hijacking_card_names_file_names_and_globs_print_no_command(runner, repo, tmp_path, monkeypatch):
    """Before: the problems past the 10 annotations per level were printed as plain lines, ``##[`` and all."""
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    (repo / "decks").mkdir()
    lines = [f"4 {name} {i}" for i in range(3) for name in HIJACKS]  # 21 unknown cards: 21 errors and more
    for i, name in enumerate(HIJACKS[:-1]):  # a file name holds no "/"
        (repo / "decks" / f"{name.replace('/', '_')}{i}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (repo / "deckcheck.toml").write_text('exclude = ["x##[add-mask]y"]\n', encoding="utf-8")
    result = runner.invoke(cli, ["check", "--as-of", ON, "--output-format", "github"])
    assert result.exit_code == 1, result.output
    out, err = result.stdout.splitlines(), result.stderr.splitlines()
    assert sum(bool(OUR_COMMAND.match(line)) for line in out) == 10  # ten errors; the rest in the log
    assert any("not annotated" in line for line in out)
    assert "warning: deckcheck.toml: exclude 'x#\u200b#[add-mask]y' matches nothing" in err
    assert [line for line in out + err if not no_command(line)] == []
    assert "##[" not in summary.read_text(encoding="utf-8")
    # a usage error naming the repository's glob is no command either
    (repo / "deckcheck.toml").write_text('exclude = ["x##[error]x[z-a]"]\n', encoding="utf-8")
    result = runner.invoke(cli, ["check", "--as-of", ON, "--output-format", "github"])
    assert result.exit_code == 2 and "#\u200b#[error]x[z-a]" in result.stderr
    assert [line for line in result.stderr.splitlines() if not no_command(line)] == []


def problems_of(texts: list[str]) -> list[Problem]:
    rules = ["copy-limit", "evolution-gap", "resolved-by-name"]
    return [Problem(rules[i % 3], text, lines=(i + 1,) if i % 2 else ()) for i, text in enumerate(texts)]


# no lone surrogate: a path reaches a renderer printable (printable_path), a text valid Unicode (checked at the door)
hostile_text = st.text(
    alphabet=st.sampled_from([":", "#", "[", "]", " ", "\n", "\r", "%", ",", "a", "\u2028"])
    | st.characters(exclude_categories=("Cs",)),
    max_size=30,
)


@settings(max_examples=200)
@given(
    decks=st.lists(st.tuples(hostile_text.filter(bool), st.lists(hostile_text, max_size=25)), min_size=1, max_size=4),
    fail_on=st.sampled_from(["error", "warning"]),
    quiet=st.booleans(),
)
def test_no_line_of_the_github_format_is_a_command_deckcheck_did_not_mean(decks, fail_on, quiet):
    results = [(path, report(problems_of(texts))) for path, texts in decks]
    opts = Options(fail_on, summary=not quiet, only_failing=quiet)
    out = render_github(results, opts)
    assert [line for line in out.split("\n") if not no_command(line)] == []
    assert "\r" not in out
    assert "##[" not in github_summary(results, Options(fail_on))


@settings(max_examples=100)
@given(decks=st.lists(st.tuples(hostile_text.filter(bool), st.lists(hostile_text, max_size=6)), min_size=1, max_size=3))
def test_every_format_printed_in_a_ci_log_holds_no_command_and_the_same_data(decks):
    """Inside GitHub Actions every format's output is a log: JSON and XML escape ``##[`` and ``::`` without
    changing their data (``\\u0023``, ``&#35;``), text inserts the zero-width break."""
    results = [(path, report(problems_of(texts))) for path, texts in decks]
    for output_format in OUTPUT_FORMATS:
        out = render(output_format, results, Options(command_safe=True))
        assert [line for line in out.split("\n") if not no_command(line)] == [], output_format
    docs = [json.loads(line) for line in render("jsonl", results).split("\n") if line]  # U+2028 is no break
    assert [(d["path"], [p["message"] for p in d["problems"]]) for d in docs] == [
        (path, [p.message for p in r.problems]) for path, r in results
    ]
    sarif = json.loads(render("sarif", results))
    assert [r["message"]["text"] for r in sarif["runs"][0]["results"]] == [
        p.message + (f" {p.hint}" if p.hint else "") for _, r in results for p in r.problems
    ]
    junit = ET.fromstring(render("junit", results).encode())
    assert [case.get("file") for case in junit.iter("testcase")] == [printable_xml(path) for path, _ in results]


def printable_xml(text: str) -> str:
    """What XML 1.0 can carry of a text (the junit renderer replaces the rest with U+FFFD)."""
    return re.sub("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]", "\ufffd", text)


def test_text_output_inside_github_actions_holds_no_command(runner, repo, monkeypatch):
    (repo / "decks").mkdir()
    (repo / "decks" / "a.txt").write_text("4 ##[add-mask]hunter2\n4 ::error::forged\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    result = runner.invoke(cli, ["check", "decks", "--as-of", ON])
    assert result.exit_code == 1
    assert "unknown-card" in result.stdout
    assert [line for line in (result.stdout + result.stderr).splitlines() if not no_command(line)] == []
    monkeypatch.delenv("GITHUB_ACTIONS")
    assert "##[add-mask]" in runner.invoke(cli, ["check", "decks", "--as-of", ON]).stdout  # elsewhere: as written


GOLDEN = HERE / "golden"
REGEN = os.environ.get("DECKCHECK_REGEN") == "1"


def test_golden_github_run_of_a_hostile_repository(runner, repo, tmp_path, monkeypatch):
    """The whole ``github`` output of a repository with a forged deck name, a hijacking deck, prose and a
    passing deck: failures first, nothing a command, the prose skipped with a note (golden files)."""
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    (repo / "decks").mkdir()
    (repo / "decks" / "README.txt").write_text("Our league decks. Ask Sam before changing one.\n", encoding="utf-8")
    (repo / "decks" / "good.txt").write_text(VALID, encoding="utf-8")
    forged = [f"4 {name} {i}" for i, name in enumerate(HIJACKS * 2)] + ["4 Ultra Ball", "4 Ultra Ball SVI 196"]
    (repo / "decks" / "##[error]forged.txt").write_text("\n".join(forged) + "\n", encoding="utf-8")
    result = runner.invoke(cli, ["check", "--as-of", ON, "--output-format", "github"])
    assert result.exit_code == 1
    got = {"github": result.stdout, "github.stderr": result.stderr, "summary.md": summary.read_text(encoding="utf-8")}
    for kind, text in got.items():
        golden = GOLDEN / f"hostile.{kind}"
        if REGEN:
            golden.write_text(text, encoding="utf-8")
        assert text == golden.read_text(encoding="utf-8"), kind


def test_a_changed_deck_below_an_unreachable_folder_is_reported_not_dropped(runner, repo, deep):
    """The Action's changed-only run: the changed file lies below the folder the walk could not enter."""
    deep("decks", 1000)
    changed = repo / "changed.txt"
    deck = os.path.join("decks", *["folder"] * 1000, "deck.txt")
    changed.write_text(deck + "\n", encoding="utf-8")
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", "jsonl", "--changed-files", str(changed))
    assert result.exit_code == 1
    assert [json.loads(line)["problems"][0]["rule"] for line in result.stdout.splitlines()] == ["unreachable-path"]
    changed.write_text("decks/other.txt\n", encoding="utf-8")
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", "jsonl", "--changed-files", str(changed))
    assert (result.exit_code, result.stdout) == (0, "")


def patterns_of(lines: list[str]) -> list[dglobs.Pattern]:
    out = []
    for line in lines:
        try:
            out.append(dglobs.Pattern.of(line))
        except ValueError:
            pass
    return out


@settings(max_examples=200)
@given(lines=globs, path=paths, outside=st.booleans())
def test_a_pattern_set_says_what_each_pattern_says(lines, path, outside):
    """Config's include and exclude lists are matched in one RE2 pass: the same answer as each glob alone."""
    patterns = tuple(patterns_of(lines))
    relative, name = (None, path.rsplit("/", 1)[-1]) if outside else (path, path.rsplit("/", 1)[-1])
    expected = [i for i, p in enumerate(patterns) if p.matches(relative, name)]
    assert dglobs.PatternSet(patterns).matching(relative, name) == expected
