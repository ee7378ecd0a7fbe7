"""Importing the reader compiles no regular expression of deckcheck.decklist; reading a list compiles
only the patterns its lines need (deckcheck.patterns.Pattern: compiled on first use)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

DECKS = Path(__file__).resolve().parent.parent / "decks"

#: run in a fresh process: every compile of a pattern whose source is in deckcheck/decklist/ (called
#: there, or through deckcheck/patterns.py from there), after the import and after each reading
_CHILD = r"""
import json, re, sys
from pathlib import Path

compiled = []
real = re._compile


def counting(pattern, flags):
    frame = sys._getframe(1)
    while frame is not None and Path(frame.f_code.co_filename).parent.name == "re":
        frame = frame.f_back
    while frame is not None and frame.f_code.co_filename.endswith("patterns.py"):
        frame = frame.f_back
    if frame is not None and Path(frame.f_code.co_filename).parent.name == "decklist" and isinstance(pattern, str):
        compiled.append(pattern)
    return real(pattern, flags)


re._compile = counting
from deckcheck.decklist import parse

steps = {"import": list(compiled)}
for path in sys.argv[1:]:
    del compiled[:]
    parse.parse(Path(path).read_bytes().decode("utf-8"))
    steps[Path(path).name] = list(compiled)
print(json.dumps(steps))
"""


def _compiles(*paths: Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, *map(str, paths)], capture_output=True, text=True, check=True, timeout=60
    )
    return json.loads(done.stdout)


def test_reading_a_usual_list_compiles_only_the_usual_lines_pattern():
    """No pattern at import; a PTCGL list (headers, card lines, a PH tag, a total) compiles the usual
    card line's pattern and nothing else; a list of other shapes compiles what those shapes need."""
    steps = _compiles(DECKS / "ptcgl-en-charizard.txt", DECKS / "standard-legal-dragapult.txt", DECKS / "crlf-bom.txt")
    assert steps["import"] == []
    from deckcheck.decklist.vocab import USUAL

    assert steps["ptcgl-en-charizard.txt"] == [USUAL.source]
    assert steps["standard-legal-dragapult.txt"] == []  # compiled already: each pattern once per process
    assert r"\r\n|\r|\n" in steps["crlf-bom.txt"]  # a text with CR line breaks needs the line-break pattern


def test_a_line_of_prose_compiles_no_header_or_count_pattern(tmp_path):
    """A line that is neither a card line nor a header ("Random line at the end", a note under a list) is
    told so without the header and count patterns; a header the usual reading leaves ("Pokémon — 30")
    and a count with a times sign ("x4 Iono PAL 185") still compile what they need."""
    from deckcheck.decklist.lineread import _LABELLED, _LEADING_COUNT, _TRAILING_COUNT

    prose = tmp_path / "prose.txt"
    prose.write_text("4 Nest Ball SVI 181\nRandom line at the end\nMy notes: play it slow\n", encoding="utf-8")
    header = tmp_path / "header.txt"
    header.write_text("Pokémon — 30\n", encoding="utf-8")
    times = tmp_path / "times.txt"
    times.write_text("x4 Iono PAL 185\nIono PAL 185 x4\n", encoding="utf-8")
    steps = _compiles(prose, header, times)
    shapes = {p.source for p in (*_LABELLED, _LEADING_COUNT, _TRAILING_COUNT)}
    assert shapes & set(steps["prose.txt"]) == set()
    assert _LABELLED[1].source in steps["header.txt"]
    assert {_LEADING_COUNT.source, _TRAILING_COUNT.source} <= set(steps["times.txt"])
