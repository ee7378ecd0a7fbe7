"""Start-up generates no code: importing what ``deckcheck check`` and a web worker run makes no dataclass
(each one ``exec``s its generated ``__init__``, ``__eq__``... at every start) and compiles only the regular
expressions a check of a usual list uses (BENCHMARKS.md, "Issue #30: start-up without generated code").

Each path runs in a fresh interpreter that records, before deckcheck is imported, every dataclass made
and every pattern compiled by a deckcheck module; then the command line checks a real PTCGL list
(``deckcheck.cli.main``), or the app is built and answers one validate request (Flask's test client).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from deckcheck.decklist.vocab import USUAL
from deckcheck.names import _TOKEN

DECKS = Path(__file__).resolve().parent / "decks"
#: a usual list: PTCGL's export of a real Standard deck, every line a card line of the usual shape
USUAL_LIST = DECKS / "standard-legal-dragapult.txt"


#: the patterns a check of a usual list may compile, (module, pattern) -> why it needs it
NEEDED: dict[tuple[str, str], str] = {
    ("deckcheck.names", _TOKEN.source): (
        "name_key's words: the formats key their banned names when they load, and a line the index "
        "does not hold is looked up by its name's key"
    ),
    ("deckcheck.cards.index", r"^([A-Z]*?)(\d+)([A-Z]?)$"): (
        "a collector number's parts (prefix, integer, suffix): a printing named by set code and number is found by them"
    ),
    ("deckcheck.decklist.vocab", USUAL.source): "the usual card line's one pattern: every never-seen line meets it",
    ("deckcheck.service.webheaders", r"https?://[A-Za-z0-9.-]+(?::[0-9]{1,5})?"): (
        "the app checks, when it is made, that CARD_IMAGE_HOST is an origin before it goes into the CSP"
    ),
}

#: runs in a fresh interpreter: records, then runs one path (argv[1]: "cli" or "app", argv[2]: the list)
PROBE = r"""
import dataclasses, json, re, sys

made, compiled = [], []
# a dataclass is made by _process_class (the decorator with or without arguments)
process_class = dataclasses._process_class

def recording_process_class(cls, *args, **kwargs):
    made.append(cls.__module__ + "." + cls.__qualname__)
    return process_class(cls, *args, **kwargs)

dataclasses._process_class = recording_process_class
# every compile goes through re._compile (re.compile, re.match... with a pattern's text): the caller is the
# first frame outside the re package, functools and deckcheck.patterns (a pattern compiled on first use is
# compiled there, for the module that uses it)
compile_ = re._compile
seen = set()
THROUGH = ("re", "functools", "deckcheck.patterns")

def through(frame):
    name = frame.f_globals.get("__name__", "")
    return any(name == module or name.startswith(module + ".") for module in THROUGH)

def recording_compile(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and through(frame):
        frame = frame.f_back
    caller = frame.f_globals.get("__name__", "") if frame is not None else ""
    key = (caller, str(pattern), int(flags))
    if caller.startswith("deckcheck") and key not in seen and not isinstance(pattern, re.Pattern):
        seen.add(key)
        compiled.append([caller, str(pattern)])
    return compile_(pattern, flags)

re._compile = recording_compile

path, deck = sys.argv[1], sys.argv[2]
if path == "cli":
    from deckcheck.cli import main

    try:
        code = main(["check", deck])
    except SystemExit as exc:
        code = exc.code
    answer = code
else:
    from deckcheck.service.app import create_app

    app = create_app()
    with open(deck, encoding="utf-8") as fh:
        response = app.test_client().post("/api/v1/validate", json={"decklist": fh.read()})
    answer = [response.status_code, response.get_json()["valid"]]
print("\n" + json.dumps({"answer": answer, "made": made, "compiled": compiled, "hashlib": "hashlib" in sys.modules}))
"""


def _start(path: str, tmp_path: Path) -> dict:
    """What one path made and compiled, run in a fresh interpreter in a repository of its own (the search
    for a settings file stops at its root: none is found, whatever the folders above hold)."""
    (tmp_path / ".git").mkdir()
    deck = tmp_path / USUAL_LIST.name
    shutil.copy(USUAL_LIST, deck)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, path, deck.name], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1]) | {"output": done.stdout + done.stderr}


def _ours(module: str) -> bool:
    return module.startswith("deckcheck")


@pytest.mark.parametrize("path, answer", [("cli", 0), ("app", [200, True])])
def test_start_up_makes_no_dataclass_and_compiles_only_what_a_usual_list_needs(path, answer, tmp_path):
    started = _start(path, tmp_path)
    assert started["answer"] == answer, started["output"]  # the list was checked, and is legal
    assert [name for name in started["made"] if _ours(name.rsplit(".", 1)[0])] == []
    compiled = {(module, pattern) for module, pattern in started["compiled"] if _ours(module)}
    assert compiled <= set(NEEDED), compiled - set(NEEDED)
    if path == "cli":  # no digest library: the pack's checks and the formats' legality digests are CRC-32s
        assert started["hashlib"] is False


def test_the_probe_sees_a_dataclass_and_a_compile(tmp_path, monkeypatch):
    """The recording is live: a dataclass and a pattern made by a deckcheck module on the path are seen."""
    package = tmp_path / "deckcheck_probe_check"
    package.mkdir()
    (package / "__init__.py").write_text(
        "import dataclasses, re\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Made:\n"
        "    x: int\n"
        "PATTERN = re.compile('[a-z]+')\n",
        encoding="utf-8",
    )
    probe = PROBE.replace("from deckcheck.cli import main", "import deckcheck_probe_check\n    main = lambda argv: 0")
    done = subprocess.run(
        [sys.executable, "-c", probe, "cli", "-"], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    started = json.loads(done.stdout.splitlines()[-1])
    assert "deckcheck_probe_check.Made" in started["made"]
    assert ["deckcheck_probe_check", "[a-z]+"] in started["compiled"]


def test_a_named_file_no_exclude_glob_can_match_is_checked_without_the_glob_engine(tmp_path):
    """``deckcheck check one.txt``: no built-in exclude glob can match the name, so neither pathspec nor
    google-re2 is imported (the largest imports of such a check, BENCHMARKS.md); a named ``requirements.txt``
    is still left out, through them."""
    (tmp_path / ".git").mkdir()
    shutil.copy(USUAL_LIST, tmp_path / "one.txt")
    shutil.copy(USUAL_LIST, tmp_path / "requirements.txt")
    code = (
        "import json, sys\n"
        "from deckcheck.cli import main\n"
        "seen = []\n"
        "for name in ('one.txt', 'requirements.txt'):\n"
        "    try:\n"
        "        main(['check', '--output-format', 'jsonl', name])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "    seen.append(sorted({m.split('.')[0] for m in sys.modules} & {'pathspec', 're2'}))\n"
        "print('\\n' + json.dumps(seen))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    *reports, seen = done.stdout.strip().splitlines()
    assert json.loads(seen) == [[], ["pathspec", "re2"]]
    assert [json.loads(line)["path"] for line in reports if line.startswith("{")] == ["one.txt"]
