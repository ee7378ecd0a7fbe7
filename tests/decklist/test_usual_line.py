"""The usual card line has one reading (:func:`deckcheck.decklist.vocab.usual_card`), which both line
readers take first, and it reads what the general reader's long way reads; the one-step reader of
never-seen lines (:mod:`deckcheck.decklist.fastline`) answers what the general reader answers.

The general reader stays the definition: :func:`_long_way` is its answer with the one-step reading
of the usual line turned off (``lineread.read_long``: every shape of line tried in turn).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_fast_equivalence import TARGETED
from test_hostile import LIMIT_BYTES, PIECES

from deckcheck.decklist import fastline, lineread, vocab
from deckcheck.decklist.vocab import SECTION_LABELS, TOTAL_LABELS, written_labels


def _long_way(raw: str):
    """What the general reader answers for the non-empty line ``raw`` without its one-step reading of
    the usual card line."""
    return lineread.read_long(raw)


def _fast_or_none(raw: str):
    """What fastline reads ``raw`` as, without the general reader (None: it leaves the line to it)."""
    return fastline._card(raw) if raw[0] in fastline._CARD_START else fastline._header(raw)


def _assert_fast_line_matches(raw: str) -> None:
    """The usual line's reading, the general reader (memo emptied) and the one-step reader of a new
    line all answer for ``raw`` what the long way answers."""
    if not raw:
        return
    expected = _long_way(raw)
    usual = vocab.usual_card(raw)
    if usual is not None:
        assert expected[0] == lineread.CARD, raw
        fields = expected[1]
        assert usual == tuple(fields[k] for k in ("count", "name", "set_code", "number", "tag")), raw
        assert fastline.card_parts(raw) in (None, usual[:4]), raw
        assert vocab.USUAL.fullmatch(raw) is None or fastline.card_parts(raw) == usual[:4], raw
    else:
        assert fastline.card_parts(raw) is None, raw
    fast = _fast_or_none(raw)
    assert fast is None or fast == expected, raw
    lineread.read_line.clear()
    assert lineread.read_line(raw) == expected, raw
    lineread.read_line.clear()
    assert fastline.read_new(raw) == expected, raw
    lineread.read_line.clear()


LINE_TOKENS = st.sampled_from(
    [
        "*",
        "-",
        "•",
        ">",
        "**",
        "***",
        "#",
        "##",
        "4",
        "1",
        "999",
        "04",
        "0",
        "x",
        "X",
        "Xerneas",
        "Nest",
        "Ball",
        "Energy",
        "energy",
        "ENERGY",
        "Basic",
        "{R}",
        "Fire",
        "SVI",
        "svi",
        "asc",
        "SV-P",
        "MEW-en",
        "GX",
        "V",
        "ex",
        "181",
        "1234",
        "12345",
        "TG01",
        "PH",
        "ph",
        "(SVI)",
        "[PAL]",
        "Poké",
        "é",
        "Pokémon",
        "Pokémon:",
        "Pokemon",
        "Trainer",
        "Trainer:",
        "Trainers",
        "Cards",
        "Cards:",
        "Énergie",
        "Energía",
        "Total",
        "Total:",
        "cartes",
        "de",
        ":",
        ": 9",
        "(12)",
        "(",
        ")",
        "12)",
        "1234567",
        "–",
        "60",
    ]
)


_GAPS = st.sampled_from([" "] * 24 + ["", "  ", "\t", "\u00a0"])


@st.composite
def any_lines(draw):
    """Lines near the usual shapes: a card line (bullet, count, name, set code, number, PH), a
    header (hashes, a label, a colon, dash or parentheses, a count), or tokens in any order;
    each part drawn from values either side of what the fast path takes."""
    shape = draw(st.sampled_from(["card", "card", "header", "tokens"]))
    if shape == "card":
        good_names = ["Nest", "Ball", "Iono's", "Xerneas", "Basic", "{R}", "Energy", "ex", "(Professor", "Turo)"]
        parts = [
            draw(st.sampled_from([""] * 6 + ["*", "-", "•", ">", "**"])),
            draw(st.sampled_from(["4", "1", "999"] * 3 + ["1000", "04", "0", "x4", "Nest"])),
            *draw(st.lists(st.one_of(st.sampled_from(good_names), LINE_TOKENS), min_size=0, max_size=3)),
            draw(st.sampled_from(["SVI", "SV1", "ME05"] * 3 + ["svi", "asc", "SV-P", "MEW-en", "GX", "Energy", "S"])),
            draw(st.sampled_from(["181", "1", "1234"] * 3 + ["01", "12345", "TG01", "2a", "PH"])),
            draw(st.sampled_from([""] * 6 + ["PH", "ph"])),
        ]
    elif shape == "header":
        label = draw(st.sampled_from([*vocab.written_labels(), "Pokémon", "Pokemon", "Trainer", "Cards", "Deck"]))
        parts = [
            draw(st.sampled_from(["", "", "#", "##", "# ", "*"])) + label,
            draw(st.sampled_from([":", " :", "-", "–", "(", "", ": ("])),
            draw(st.sampled_from(["9", "60", "1234567", "", "x", "9)", "(9)", "9 "])),
        ]
    else:
        parts = draw(st.lists(LINE_TOKENS, min_size=1, max_size=7))
    parts = [p for p in parts if p]
    out = ""
    for i, tok in enumerate(parts):
        out += (draw(_GAPS) if i else "") + tok
    return draw(st.sampled_from([""] * 12 + [" "])) + out + draw(st.sampled_from([""] * 12 + [" ", ")"]))


@st.composite
def lines_at_the_limit(draw):
    """One line of the byte limit (no line break: the longest line a decklist can have), made of a
    usual line's parts around a long run of hostile pieces (blanks of every kind, brackets, marks) or
    of tokens the usual line's pattern tries a set code and number at."""
    head = draw(st.sampled_from(["4 ", "* 4 ", "1 A", "1 x ", "999 ", "Pokémon", "## ", "", "4 x"]))
    unit = draw(
        st.one_of(
            st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map("".join),
            st.sampled_from([" A1", " 1", " AB 1", " AB 1 PH", " a", " A 1", " 11111111", " ZZZZZZZZZ", " PH", "  "]),
        )
    )
    tail = draw(
        st.sampled_from([" SVI 181", " svi 181", " Energy 2", " SV-P 1", " E&V 1", " SVI 1 PH", " x", ": 9", ""])
    )
    room = LIMIT_BYTES - len(head.encode()) - len(tail.encode())
    return head + unit * max(1, room // len(unit.encode())) + tail


def _real_lines() -> list[str]:
    """Every distinct non-empty line of the text lists in tests/ (the shapes lists are written in)."""
    here = Path(__file__).parent.parent
    found: dict[str, None] = {}
    for path in sorted(here.rglob("*.txt")):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        found.update(dict.fromkeys(line for line in lineread.LINE_BREAK.split(text) if line.strip()))
    return list(found)


REAL_LINES = _real_lines()


#: what a mutation puts into a real line: blanks, case, the times sign, digits, punctuation
_EDITS = st.sampled_from(
    [" ", "  ", "\t", "\u00a0", "x", "X", "×", "0", "9", "a", "A", "-", "*", "PH", "é", ":", "(", ""]
)


@st.composite
def mutated_real_lines(draw):
    """A real line with up to three edits (a character replaced, text inserted, one deleted, the
    line upper- or lower-cased): the neighbourhood of the shapes lists are written in."""
    raw = draw(st.sampled_from(REAL_LINES))
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(raw)))
        how = draw(st.sampled_from(["insert", "replace", "delete", "upper", "lower"]))
        if how == "upper":
            raw = raw.upper()
        elif how == "lower":
            raw = raw.lower()
        elif how == "delete":
            raw = raw[:at] + raw[at + 1 :]
        else:
            raw = raw[:at] + draw(_EDITS) + raw[at + (how == "replace") :]
    return raw


#: every shape of line the property is tried on: near the usual shapes, any text, real lines edited,
#: the lines of test_fast_equivalence.TARGETED
ANY_LINE = st.one_of(any_lines(), st.text(max_size=40), mutated_real_lines(), st.sampled_from(TARGETED))


@pytest.mark.slow
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ANY_LINE)
@example("4 x SVI 1")  # a name that is a lone times sign: the long way reads "x" as the sign
@example("* 4 x svi 1")
@example("4 {R} Energy SVE 2")  # no letter first: the pattern leaves it to the split
@example("4 Nest Ball SVI " + "1" * 5)
def test_the_readers_answer_what_the_long_way_answers(raw):
    _assert_fast_line_matches(raw)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(lines_at_the_limit())
def test_the_readers_answer_what_the_long_way_answers_at_the_line_length_limit(raw):
    _assert_fast_line_matches(raw)


@settings(max_examples=300, deadline=None)
@given(any_lines())
def test_the_readers_answer_what_the_long_way_answers_quick(raw):
    """The property above, on fewer lines, in the quick subset."""
    _assert_fast_line_matches(raw)


def test_every_real_and_targeted_line_reads_as_the_long_way_reads_it():
    assert len(REAL_LINES) > 500
    taken = 0
    for raw in [*REAL_LINES, *TARGETED]:
        _assert_fast_line_matches(raw)
        taken += raw[0].isdigit() and _fast_or_none(raw) is not None
    assert taken > 200  # most of the card lines are read in one step


def test_every_written_label_reads_as_the_long_way_reads_it():
    assert len(vocab.written_labels()) > 60
    for label in vocab.written_labels():
        for raw in (f"{label}: 9", f"{label} : 12", f"##{label} - 22", f"{label} (8)", f"{label}:60", f"{label}:"):
            _assert_fast_line_matches(raw)
        assert _fast_or_none(f"{label}: 9") is not None, label
        folded = vocab.fold_label(label)  # each spelling folds into the label it was made from
        assert folded in (*vocab.SECTION_LABELS, *vocab.TOTAL_LABELS), label
        assert vocab.written_labels()[label] == vocab.SECTION_LABELS.get(folded), label


def test_usual_card_examples():
    """The usual line's reading, with a bullet, a tag, a code with a suffix, in lower case or the
    Energy pseudo set; the shapes it leaves to the long way."""
    usual = vocab.usual_card
    assert usual("4 Nest Ball SVI 181") == (4, "Nest Ball", "SVI", "181", None)
    assert usual("1 Iono PAL 185 PH") == (1, "Iono", "PAL", "185", "PH")
    assert usual("* 4 Dreepy TWM 128") == (4, "Dreepy", "TWM", "128", None)
    assert usual("- 2 Pikachu ex SV-P 12") == (2, "Pikachu ex", "SV-P", "12", None)
    assert usual("1 PH PAL 185 PH") == (1, "PH", "PAL", "185", "PH")
    assert usual("1 PH PAL 185") == (1, "PH", "PAL", "185", None)
    assert usual("4 Cynthia's Gible asc 109") == (4, "Cynthia's Gible", "ASC", "109", None)
    assert usual("3 Basic {R} Energy Energy 2") == (3, "Basic {R} Energy", "ENERGY", "2", None)
    assert usual("3 {R} Energy SVE 2") == (3, "{R} Energy", "SVE", "2", None)
    assert usual("1 Pikachu MEW-en 25") == (1, "Pikachu", "MEW-EN", "25", None)
    for raw in (
        "4  Nest Ball SVI 181",
        "2 x Pidgeot ex OBF 164",
        "4 x SVI 1",
        "4 x svi 1",
        "4 × Nest SVI 4",
        "04 Nest Ball SVI 181",
        "1000 Nest Ball SVI 181",
        "4 Nest Ball SVI 18100",
        "4 SVI 181",
        "* 4 SVI 1 PH",
        "4 Nest\tBall SVI 181",
        "4 Nest Ball Svi 181",
        "4 Nest Ball SVI 181 ",
        "4 Lucario GX 1",
        "4 123 SVI 181",
        "4 Nest Ball SVI 181 ph",
        "*",
        "",
    ):
        assert usual(raw) is None, raw
        assert fastline.card_parts(raw) is None, raw


def test_one_step_reading_examples():
    """The usual shapes are read in one step (and as the general reader reads them)."""
    for raw in (
        "4 Nest Ball SVI 181",
        "1 Iono PAL 185 PH",
        "* 4 Dreepy TWM 128",
        "- 2 Pikachu ex SV-P 12",
        "3 Basic {R} Energy Energy 2",
        "4 Cynthia's Gible asc 109",
        "Pokémon: 14",
        "Énergie : 3",
        "##Trainer Cards - 28",
        "Pokémon (22)",
        "Total Cards: 60",
        "****** Pokémon Trading Card Game Deck List ******",
    ):
        assert _fast_or_none(raw) is not None, raw
        _assert_fast_line_matches(raw)
    for raw in ("*", "-", "4  Nest Ball SVI 181", "2 x Pidgeot ex OBF 164", "0 Iono PAL 185", "Pokémon", "Random line"):
        assert _fast_or_none(raw) is None, raw
        _assert_fast_line_matches(raw)
    assert fastline.card_parts("4 Nest Ball SVI 181") == (4, "Nest Ball", "SVI", "181")
    assert fastline.card_parts("* 1 Iono PAL 185 PH") == (1, "Iono", "PAL", "185")
    for raw in ("4 Cynthia's Gible asc 109", "3 Basic {R} Energy Energy 2", "4 Lucario GX 1", "Pokémon: 14", "-"):
        assert fastline.card_parts(raw) is None, raw  # read_new's to read


def _is_set_code_oracle(text: str) -> bool:
    if "&" in text:
        return bool(vocab.AMP_CODE.fullmatch(text))
    return bool(vocab.SET_CODE.fullmatch(text)) and text.partition("-")[0] not in vocab.NAME_SUFFIXES


@pytest.mark.slow
@settings(max_examples=1500, deadline=None)
@given(st.one_of(st.text(alphabet="ABCSVIPLxyzé0129-&ÀßǅＡ", max_size=10), st.text(max_size=10)))
def test_is_set_code_fast_path_matches_the_pattern(text):
    assert vocab.is_set_code(text) == _is_set_code_oracle(text)


def test_is_set_code_examples():
    for code in ("SVI", "SV1", "ME05", "SV-P", "SWSH-123", "E&V", "SL&M"):
        assert vocab.is_set_code(code), code
    for text in ("GX", "V", "123", "svi", "S", "ABCDEFGHI", "SVé", "ǅA", "ＡＢ", "SV-", "&", "1&2"):
        assert not vocab.is_set_code(text), text


def _imports(module) -> list[tuple[str, str]]:
    """``(module, name)`` of every ``from ... import name`` of ``module``'s source."""
    tree = ast.parse(inspect.getsource(module))
    return [
        (node.module or "", alias.name)
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    ]


def test_the_readers_share_one_vocabulary_and_no_private_name():
    """fastline imports no private name of the general reader and has no pattern of its own; the words
    and shapes both readers use are vocab's (one object each)."""
    assert [(m, n) for m, n in _imports(fastline) if n.startswith("_")] == []
    assert [(m, n) for m, n in _imports(lineread) if n.startswith("_")] == []
    source = inspect.getsource(fastline)
    assert "re.compile" not in source and "Pattern(" not in source and "import re" not in source
    for name in ("BULLETS", "COUNTS", "usual_code", "usual_name"):
        assert getattr(fastline, name) is getattr(vocab, name), name
    assert lineread.MAX_COPIES == vocab.MAX_COPIES == max(vocab.COUNTS.values())
    assert all(len(sign) == 1 for sign in vocab.BULLETS | vocab.TIMES)  # USUAL has a class of each
    vocab.usual_card("4 Nest Ball SVI 181")
    assert vocab.usual_match == vocab.USUAL.compiled().fullmatch  # the compiled pattern's own, once used


@settings(max_examples=600, deadline=None)
@given(
    st.text(alphabet=st.sampled_from("aXx Éé'’-.{}R0 \t\u00a0\u2003"), max_size=12),
    st.text(alphabet=st.sampled_from("SVIP0a-"), max_size=9),
    st.sampled_from(["1", "181", "0", "9999", "12345", "044", "TG01", "1a"]),
)
@example("Boss’s Orders", "MEG", "114")
@example("x Nest", "SVI", "1")  # the times sign: refused by usual_name
def test_the_usual_shape_of_a_name_and_a_code_is_the_patterns(name, code, number):
    """What usual_name and usual_code accept, with 1 to 4 digits, the usual line's pattern reads as
    exactly those parts after any count (what CardDB.printed_line's entries rely on)."""
    if fastline.usual_name(name) and fastline.usual_code(code) and len(number) < 5 and number.isdigit():
        for raw, count in ((f"12 {name} {code} {number}", 12), (f"- 3 {name} {code} {number} PH", 3)):
            m = vocab.USUAL.fullmatch(raw)
            assert m is not None and m.groups()[1:4] == (name, code, number), raw
            assert fastline.card_parts(raw) == (count, name, code, number)


# -- the cheap tests before the header and count patterns -------------------------------------------

_LABEL_TEXT = st.one_of(
    st.sampled_from(sorted(written_labels())),
    st.text(
        alphabet=st.sampled_from("PokémonTrainerÉnergieTotal Ååßẞİŉǰΐΰ\u0301\u00a0\t:-–()#0123456789x"), max_size=30
    ),
)


@settings(max_examples=400, deadline=None)
@given(
    before=st.text(alphabet="# \t\u3000", max_size=4),
    label=_LABEL_TEXT,
    between=st.text(alphabet=" \t\u00a0:-–—()", max_size=4),
    count=st.one_of(st.just(""), st.integers(0, 10**6).map(str)),
    after=st.text(max_size=8),
)
def test_the_label_screen_lets_through_every_text_the_header_patterns_read_as_a_label(
    before, label, between, count, after
):
    """``_may_be_labelled`` only stops texts in which :func:`_labelled` finds no known label: the screen
    changes no reading, it only spares a line of prose the four header patterns."""
    from deckcheck.decklist.lineread import _labelled, _may_be_labelled

    for text in (before + label + between + count + after, before + label + between + count, before + label):
        found = _labelled(text)
        if found is not None and (found[1] in SECTION_LABELS or found[1] in TOTAL_LABELS):
            assert _may_be_labelled(text), (text, found)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789xX×٣a ."), min_size=1, max_size=8))
def test_a_count_with_a_times_sign_starts_or_ends_with_a_digit(word):
    """The screen before the count patterns: every word they match starts or ends with a digit."""
    from deckcheck.decklist.lineread import _DIGITS, _LEADING_COUNT, _TRAILING_COUNT

    if _LEADING_COUNT.fullmatch(word):
        assert word[:1] in _DIGITS or word[-1:] in _DIGITS
    if _TRAILING_COUNT.fullmatch(word):
        assert word[-1:] in _DIGITS
