"""What ``deckcheck check`` reads in a real deck repository: .gitignore, links, FIFOs, globs, config globs.

Every test builds a throwaway repository (``git init``) in a temporary folder and pins ``--as-of``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deckcheck.cli import cli, globs
from deckcheck.cli import repoconfig as dconfig

HERE = Path(__file__).resolve().parent.parent / "cli"
VALID = (HERE / "decks" / "valid.txt").read_text(encoding="utf-8")
ON = "2026-05-01"
SECRET = "root:x:0:0:root:/root:/bin/bash\n"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and symbolic links")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture()
def repo(tmp_path, monkeypatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    monkeypatch.chdir(root)
    return root


def run(runner, *args, **kw):
    return runner.invoke(cli, list(args), catch_exceptions=False, **kw)


def checked(result) -> list[tuple[str, str]]:
    return [(d["path"], d["format"]) for d in json.loads(result.stdout)]


@pytest.fixture()
def deck_repo(repo, tmp_path) -> Path:
    """The layout of the issue: node_modules, a gitignored draft, a FIFO, an outside link, decks/glc/."""
    write(repo / ".gitignore", "node_modules/\ndrafts/\n*.draft.txt\n")
    write(repo / "deckcheck.toml", '[overrides]\n"glc" = "glc"\n"archive/**" = "expanded"\n')
    write(repo / "requirements.txt", "flask\n")
    write(repo / "package.json", '{"name": "x"}\n')
    write(repo / "node_modules" / "foo" / "README.txt", "not a deck\n")
    write(repo / "drafts" / "idea.txt", "4 Pikachu\n")
    write(repo / "decks" / "lugia.draft.txt", "4 Lugia\n")
    write(repo / "decks" / "dragapult.txt", VALID)
    write(repo / "decks" / "glc" / "rocket.txt", VALID)
    os.mkfifo(repo / "decks" / "pipe.txt")
    outside = write(tmp_path / "passwd", SECRET)
    os.symlink(outside, repo / "decks" / "leak.txt")
    os.symlink("dragapult.txt", repo / "decks" / "alias.txt")  # a link inside the tree is read
    os.symlink(tmp_path, repo / "decks" / "elsewhere")  # a link to a folder is not followed
    return repo


def test_no_arguments_checks_exactly_the_decks_a_maintainer_expects(runner, deck_repo):
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert checked(result) == [
        ("decks/alias.txt", "standard"),
        ("decks/dragapult.txt", "standard"),
        ("decks/glc/rocket.txt", "glc"),  # "glc" = "glc" names the folder anywhere
        ("decks/leak.txt", "standard"),
    ]
    leak = json.loads(result.stdout)[-1]
    assert [(p["rule"], p["code"], p["severity"]) for p in leak["problems"]] == [
        ("symlink-outside-tree", "P115", "error")
    ]
    assert "not followed or read" in leak["problems"][0]["message"]
    assert "root:x" not in result.stdout
    assert result.stderr == "warning: deckcheck.toml: override 'archive/**' matches none of the decks checked\n"
    assert result.exit_code == 1  # the outside link fails its deck


def test_text_and_github_outputs_never_quote_an_outside_target(runner, deck_repo):
    for fmt in ("text", "github", "sarif", "junit"):
        result = run(runner, "check", "decks", "--as-of", ON, "--output-format", fmt)
        assert "root:x" not in result.stdout and "/bin/bash" not in result.stdout
    text = run(runner, "check", "decks/leak.txt", "--as-of", ON).stdout
    assert text.startswith("decks/leak.txt: symlink-outside-tree The file is a symbolic link to ")


def test_a_named_fifo_is_a_problem_and_never_opened(runner, deck_repo):
    # opening a FIFO with no writer would block: the run finishing at all is the test
    result = run(runner, "check", "decks/pipe.txt", "--as-of", ON, "--output-format", "json")
    doc = json.loads(result.stdout)[0]
    assert [(p["rule"], p["message"]) for p in doc["problems"]] == [
        ("unreadable-file", "The path is a FIFO, not a regular file; it was not read.")
    ]


@pytest.mark.slow
def test_a_real_process_does_not_hang_on_a_fifo(deck_repo):
    proc = subprocess.run(
        [sys.executable, "-m", "deckcheck", "check", "--as-of", ON, "-q"],
        cwd=deck_repo,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1
    assert (
        f"decks/leak.txt: symlink-outside-tree The file is a symbolic link to '{deck_repo.parent}/passwd', "
        "outside '.', the tree being checked; it was not followed or read.\n" in proc.stdout
    )


def test_nested_gitignore_negation_and_info_exclude(runner, repo):
    write(repo / ".gitignore", "*.txt\n!keep.txt\n")
    write(repo / "decks" / ".gitignore", "!*.txt\nold.txt\n")
    write(repo / ".git" / "info" / "exclude", "private/\n")
    for name in ("top.txt", "keep.txt", "decks/a.txt", "decks/old.txt", "private/p.txt"):
        write(repo / name, VALID)
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert [p for p, _ in checked(result)] == ["decks/a.txt", "keep.txt"]
    # a walk that starts below the root still obeys the root's rules
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", "json")
    assert [p for p, _ in checked(result)] == ["decks/a.txt"]
    # a file named on the command line is checked even when ignored
    assert [p for p, _ in checked(run(runner, "check", "top.txt", "--as-of", ON, "--output-format", "json"))] == [
        "top.txt"
    ]


def test_outside_a_repository_the_folders_gitignore_still_counts(runner, tmp_path, monkeypatch):
    write(tmp_path / "plain" / ".gitignore", "b.txt\n")
    write(tmp_path / "plain" / "a.txt", VALID)
    write(tmp_path / "plain" / "b.txt", VALID)
    monkeypatch.chdir(tmp_path / "plain")
    assert [p for p, _ in checked(run(runner, "check", "--as-of", ON, "--output-format", "json"))] == ["a.txt"]


def test_quoted_globs_are_expanded(runner, deck_repo):
    result = run(runner, "check", "decks/*.txt", "--as-of", ON, "--output-format", "json")
    assert [p for p, _ in checked(result)] == [
        "decks/alias.txt",
        "decks/dragapult.txt",
        "decks/leak.txt",
        "decks/lugia.draft.txt",
        "decks/pipe.txt",
    ]
    result = run(runner, "check", "decks/**/rocket.txt", "--as-of", ON, "--output-format", "json")
    assert checked(result) == [("decks/glc/rocket.txt", "glc")]
    result = run(runner, "check", "nothing/*.txt", "--as-of", ON)
    assert result.exit_code == 2
    assert "no file matches 'nothing/*.txt'" in result.stderr
    result = run(runner, "check", "missing.txt", "--as-of", ON)
    assert result.exit_code == 2 and "Path 'missing.txt' does not exist." in result.stderr


@pytest.mark.parametrize("args", [["-h"], ["check", "-h"], ["db", "-h"]])
def test_dash_h_is_help(runner, args):
    result = run(runner, *args)
    assert result.exit_code == 0 and result.stdout.startswith("Usage: ")


@pytest.mark.parametrize(
    ("env", "coloured"),
    [
        ({}, False),
        ({"FORCE_COLOR": "1"}, True),
        ({"FORCE_COLOR": ""}, False),
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_force_color(runner, deck_repo, monkeypatch, env, coloured):
    for key in ("FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(key, raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    result = run(runner, "check", "decks/leak.txt", "--as-of", ON)
    assert ("\x1b[" in result.stdout) is coloured
    if coloured:
        assert "\x1b[" not in run(runner, "check", "decks/leak.txt", "--as-of", ON, "--no-color").stdout


# -- configuration globs: every form the README documents, for exclude and for overrides ------------

FORMS = [
    # glob, path (relative to the configuration's folder), matches
    ("glc", "glc/a.txt", True),  # a name: a folder anywhere...
    ("glc", "decks/glc/rocket.txt", True),
    ("glc", "decks/glc", True),  # ...or a file anywhere
    ("glc", "decks/glcx/a.txt", False),
    ("*.txt", "deep/down/a.txt", True),
    ("*.txt", "a.json", False),
    ("deck?.txt", "sub/deck1.txt", True),
    ("[!a]*.txt", "a.txt", False),
    ("[!a]*.txt", "b.txt", True),
    ("glc/", "decks/glc/a.txt", True),  # trailing / only: still a name anywhere (a folder)
    ("glc/**", "glc/x/y/a.txt", True),  # a / inside: from the configuration's folder
    ("glc/**", "decks/glc/a.txt", False),
    ("decks/glc/**", "decks/glc/rocket.txt", True),
    ("decks/glc", "decks/glc/rocket.txt", True),
    ("/top.txt", "top.txt", True),  # a leading /: anchored
    ("/top.txt", "sub/top.txt", False),
    ("**/glc/*.txt", "glc/a.txt", True),  # **/ crosses any number of folders, also none
    ("**/glc/*.txt", "x/y/glc/a.txt", True),
    ("**/glc/*.txt", "x/glc/sub/a.txt", False),  # * stays in one folder
    ("archive/**/old.txt", "archive/old.txt", True),
    ("archive/**/old.txt", "archive/2024/q1/old.txt", True),
]


@pytest.mark.parametrize(("glob", "path", "matches"), FORMS, ids=lambda v: str(v))
def test_every_documented_glob_form(glob, path, matches):
    assert globs.Pattern.of(glob).matches(path, path.rsplit("/", 1)[-1]) is matches


@pytest.mark.parametrize(
    ("glob", "path", "matches"), [f for f in FORMS if f[1].endswith((".txt", ".json"))], ids=lambda v: str(v)
)
def test_every_form_as_exclude_and_as_override_on_real_files(runner, repo, glob, path, matches):
    write(repo / path, VALID)
    write(repo / "zz" / "other.json", VALID)
    write(repo / "deckcheck.toml", f"exclude = [{json.dumps(glob)}]\n")
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert (path in [p for p, _ in checked(result)]) is not matches
    write(repo / "deckcheck.toml", f'[overrides]\n{json.dumps(glob)} = "glc"\n')
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert dict(checked(result))[path] == ("glc" if matches else "standard")
    assert dict(checked(result))["zz/other.json"] == "standard"


def test_exclude_also_applies_to_named_files_and_a_negation_takes_a_builtin_back(runner, repo):
    write(repo / "deckcheck.toml", 'exclude = ["drafts", "!package.json"]\n')
    write(repo / "drafts" / "a.txt", VALID)
    write(repo / "package.json", '{"cards": [{"count": 4, "name": "Pikachu"}]}\n')
    write(repo / "requirements.txt", "flask\n")
    result = run(runner, "check", "drafts/a.txt", ".", "--as-of", ON, "--output-format", "json")
    assert [p for p, _ in checked(result)] == ["package.json"]


def test_a_negation_takes_one_file_back_as_in_git(runner, repo):
    write(repo / "deckcheck.toml", 'exclude = ["drafts/*", "!drafts/keep.txt"]\n')
    write(repo / ".gitignore", "old/*\n!old/still.txt\n")
    for name in ("drafts/a.txt", "drafts/keep.txt", "old/b.txt", "old/still.txt"):
        write(repo / name, VALID)
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert [p for p, _ in checked(result)] == ["drafts/keep.txt", "old/still.txt"]
    assert result.stderr == ""


def test_an_exclude_that_matches_nothing_is_a_warning(runner, repo):
    write(repo / "deckcheck.toml", 'exclude = ["drafts", "old/**"]\n[overrides]\n"glc/**" = "glc"\n')
    write(repo / "drafts" / "a.txt", VALID)
    write(repo / "decks" / "glc" / "b.txt", VALID)
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert result.stderr.splitlines() == [
        "warning: deckcheck.toml: exclude 'old/**' matches nothing",
        "warning: deckcheck.toml: override 'glc/**' matches none of the decks checked",
    ]
    # a run over part of the tree cannot tell: no warning
    result = run(runner, "check", "decks", "--as-of", ON, "--output-format", "json")
    assert result.stderr == ""


def test_a_bad_glob_is_a_usage_error(runner, repo):
    write(repo / "deckcheck.toml", 'exclude = ["#comment"]\n')
    write(repo / "a.txt", VALID)
    result = run(runner, "check", "a.txt", "--as-of", ON)
    assert result.exit_code == 2
    assert "deckcheck.toml: exclude: '#comment' is not a glob" in result.stderr


def test_a_link_on_the_way_out_of_the_working_directory_is_never_followed(runner, repo, tmp_path):
    # a pull request can turn decks/ (or a folder in it) into a link to anywhere: no glob, folder
    # or file path written inside the working directory may read through it
    outside = tmp_path / "outside"
    write(outside / "secret.txt", SECRET)
    write(repo / "decks" / "dragapult.txt", VALID)
    os.symlink(outside, repo / "decks" / "out")
    os.symlink(outside, repo / "linked")
    for args in (
        ["decks/*"],
        ["decks/*/*.txt"],
        ["decks/out/*.txt"],
        ["decks/out/secret.txt"],
        ["linked"],
        ["decks/out"],
        ["linked/secret.txt"],
    ):
        result = run(runner, "check", *args, "--as-of", ON, "--output-format", "json")
        assert "root:x" not in result.stdout, args
        assert "/bin/bash" not in result.stdout, args
    result = run(runner, "check", "decks/*", "--as-of", ON, "--output-format", "json")
    assert [p for p, _ in checked(result)] == ["decks/dragapult.txt"]  # decks/out: a link to a folder, skipped
    result = run(runner, "check", "decks/out/*.txt", "linked", "--as-of", ON, "-q")
    assert result.stdout == (
        f"decks/out/secret.txt: symlink-outside-tree The file leads through a symbolic link to "
        f"'{outside}/secret.txt', outside the working directory, the tree being checked; it was not followed "
        "or read.\n"
        f"linked: symlink-outside-tree The folder is a symbolic link to '{outside}', outside the working "
        "directory, the tree being checked; it was not followed or read.\n"
    )
    # a path written outside the working directory is the user's own choice, read as given
    result = run(runner, "check", str(outside / "secret.txt"), "--as-of", ON, "-q")
    assert "symlink-outside-tree" not in result.stdout and "deck-size" in result.stdout


def test_a_glob_no_regular_expression_can_express_is_never_a_traceback(runner, repo):
    write(repo / "decks" / "a.txt", VALID)
    write(repo / "decks" / "b.txt", VALID)
    # in a .gitignore git skips such a line and keeps the others
    write(repo / ".gitignore", "[z-a].txt\nb.txt\n")
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert [p for p, _ in checked(result)] == ["decks/a.txt"]
    (repo / ".gitignore").unlink()
    # on the command line and in the configuration it is a usage error naming it
    result = run(runner, "check", "decks/[z-a]*.txt", "--as-of", ON)
    assert result.exit_code == 2
    assert "'decks/[z-a]*.txt' is not a valid glob (invalid character class range: z-a)" in result.stderr
    for toml, where in (('exclude = ["[z-a]"]\n', "exclude"), ('[overrides]\n"[z-a]" = "glc"\n', 'overrides."[z-a]"')):
        write(repo / "deckcheck.toml", toml)
        result = run(runner, "check", "--as-of", ON)
        assert result.exit_code == 2
        assert (
            f"deckcheck.toml: {where}: '[z-a]' is not a valid glob (invalid character class range: z-a)"
            in result.stderr
        )


@pytest.mark.slow
def test_git_s_escaped_bracket_works_without_a_python_warning(repo):
    write(repo / "decks" / "[x].txt", VALID)
    write(repo / "decks" / "x.txt", VALID)
    write(repo / "deckcheck.toml", '[overrides]\n"decks/[[]x].txt" = "glc"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "deckcheck", "check", "--as-of", ON, "--output-format", "jsonl"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert [(d["path"], d["format"]) for d in map(json.loads, proc.stdout.splitlines())] == [
        ("decks/[x].txt", "glc"),
        ("decks/x.txt", "standard"),
    ]
    assert proc.stderr == ""


@pytest.mark.parametrize(
    "glob, expected",
    [
        ("decks/**", ["decks/a.txt", "decks/glc/b.txt", "decks/glc/deep/c.txt"]),  # ** at the end: all below
        ("decks/glc/**", ["decks/glc/b.txt", "decks/glc/deep/c.txt"]),
        ("**", ["decks/a.txt", "decks/glc/b.txt", "decks/glc/deep/c.txt", "top.txt"]),
        ("decks/*/", ["decks/glc/b.txt", "decks/glc/deep/c.txt"]),  # a trailing /: folders only, walked
        ("decks/**/*.txt", ["decks/a.txt", "decks/glc/b.txt", "decks/glc/deep/c.txt"]),
        ("decks/*/*.txt", ["decks/glc/b.txt"]),
        ("*/glc/[b-c].txt", ["decks/glc/b.txt"]),
        ("decks/[!a]*", ["decks/glc/b.txt", "decks/glc/deep/c.txt"]),
        ("decks/[[]x].txt", ["decks/[x].txt"]),
    ],
)
def test_quoted_globs_expand_as_the_shell_with_globstar_would(runner, repo, glob, expected):
    for name in ("top.txt", "decks/a.txt", "decks/glc/b.txt", "decks/glc/deep/c.txt", ".hidden/h.txt"):
        write(repo / name, VALID)
    if "[[]" in glob:
        write(repo / "decks" / "[x].txt", VALID)
    result = run(runner, "check", glob, "--as-of", ON, "--output-format", "json")
    assert result.exit_code == 0, result.stderr
    assert sorted(p for p, _ in checked(result)) == expected


@pytest.mark.slow
def test_a_fifo_named_gitignore_does_not_hang_the_walk(repo):
    write(repo / "decks" / "a.txt", VALID)
    os.mkfifo(repo / "decks" / ".gitignore")
    proc = subprocess.run(
        [sys.executable, "-m", "deckcheck", "check", "--as-of", ON, "--output-format", "jsonl"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert [json.loads(line)["path"] for line in proc.stdout.splitlines()] == ["decks/a.txt"]


def test_a_configuration_that_is_not_utf8_or_has_a_tool_that_is_no_table_is_no_traceback(runner, repo):
    write(repo / "decks" / "a.txt", VALID)
    (repo / "deckcheck.toml").write_bytes(b"as-of = 2026-05-01\n\xff\n")
    result = run(runner, "check")
    assert result.exit_code == 2
    assert "deckcheck.toml: cannot be read as TOML: it is not UTF-8 (byte 0xff at offset 19)" in result.stderr
    (repo / "deckcheck.toml").unlink()
    write(repo / "pyproject.toml", "tool = 5\n")  # not ours: passed over
    result = run(runner, "check", "--as-of", ON, "--output-format", "json")
    assert result.exit_code == 0 and [p for p, _ in checked(result)] == ["decks/a.txt"]


_SEGMENT = st.sampled_from(["a", "b", "..", ".", "", "x y", "ü", "tmp", "decks"])


@pytest.mark.slow
@pytest.mark.parametrize("root", ["/", "/tmp", "/tmp/a", "//", "//tmp", "."])
@settings(max_examples=400, deadline=None)
@given(absolute=st.booleans(), parts=st.lists(_SEGMENT, max_size=6))
def test_relative_is_what_relpath_says(root, absolute, parts):
    """Config.relative and path_below slice a path below the root instead of calling relpath for every
    file of a walk: they answer exactly as os.path.relpath does (None outside), leading "//" and "."
    included; a report's path (_shown, relative to the working directory) likewise."""
    from deckcheck.cli.common import _shown

    config = dconfig.Config(root=Path(root))
    path = ("/" if absolute else "") + "/".join(parts) or "."
    rel = os.path.relpath(os.path.abspath(path), config.root)
    expected = None if rel == ".." or rel.startswith("../") or os.path.isabs(rel) else rel
    assert config.relative(path) == expected
    assert globs.path_below(path, os.path.join(os.path.abspath(root), "")) == expected
    here = os.path.relpath(path)
    assert _shown(path) == (os.path.abspath(path) if here == ".." or here.startswith("../") else here)
