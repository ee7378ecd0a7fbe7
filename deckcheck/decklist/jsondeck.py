"""JSON decks: the export shapes real tools write, read into card rows (:func:`read_json`).

Every entry of a JSON deck ends up as a card row or a problem naming the entry (its 1-based
index stands for a line number); nothing raises.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from ..patterns import Pattern
from ..problems import Problem
from ..wording import plural
from .lineread import ID_DISAMBIGUATOR, MAX_COPIES, CardRow, row_fields, shorten, take_tag
from .vocab import fold_label

_JSON_START = Pattern(r"\s*(?:\{|\[\s*[{\[\]])")

#   {"cards": [...]}                                     deckcheck, RK9 (one deck), pokemontcg.io
#   {"decklist": {"pokemon": [...], "trainer": [...], "energy": [...]}}    Limitless API
#   {"pokemon": [...], "trainer": [...], "energy": [...]}                  Limitless, bare
#   [deck, deck, ...]                      an event's players (RK9, Limitless standings)
#   [entry, entry, ...]                    a bare list of entries
# An array of several decks is read as its first deck, with a warning (one report is one deck).

#: the shapes of JSON deck that are read, for the error on any other
JSON_SHAPES = (
    '{"cards": [{"count": 4, "name": "Iono", "set": "PAL", "number": "185"}]} (deckcheck, RK9, '
    'pokemontcg.io), {"decklist": {"pokemon": [...], "trainer": [...], "energy": [...]}} (Limitless), '
    "or an array of such decks (one per player) or of card entries"
)
_SECTION_KEYS = ("pokemon", "trainer", "energy")
#: a section's key as exports write it, case and accents folded (:func:`~deckcheck.decklist.vocab.fold_label`),
#: singular or plural -> the section ("Pokémon", "Trainers", "energies")
_SECTION_SPELLINGS = {
    **{key: key for key in _SECTION_KEYS},
    "pokemons": "pokemon",
    "trainers": "trainer",
    "energies": "energy",
}
_DECK_KEYS = ("cards", "decklist", "deck", "list")
_CARD_ID = Pattern(r"([a-z][a-z0-9.]{1,15})-([A-Za-z]{0,5}[0-9]{1,4}[A-Za-z]?)" + ID_DISAMBIGUATOR)
_PLAYER_KEYS = ("name", "player", "playerName", "player_name", "username")


#: the objects a deck was found through, each with the key read in it (:func:`_json_sections`)
Path = list[tuple[dict[str, Any], "str | None"]]


def _section_of(key: str) -> str | None:
    """The section a key of a deck object names (``Trainer``, ``trainers``), or None."""
    return _SECTION_SPELLINGS.get(fold_label(key)) if len(key) <= 20 else None


def _json_sections(
    value: object, depth: int = 0, path: Path | None = None
) -> list[tuple[str | None, list[Any]]] | None:
    """``[(section, entries), ...]`` of a JSON deck of a known shape, else None. ``path``, when given,
    gets each object the deck was found through with the key read in it (None: its sections were read)."""
    if depth > 3:
        return None
    if isinstance(value, list):
        return [(None, value)] if depth else None  # a bare array is told apart by _json_decks
    if not isinstance(value, dict):
        return None
    found: dict[str, list[Any]] = {}
    for key, entries in value.items():
        section = _section_of(key) if isinstance(entries, list) else None
        if section is not None:  # every spelling of a section is read ("trainer" and "Trainers" alike)
            found[section] = found.get(section, []) + entries
    if found:
        if path is not None:
            path.append((value, None))
        return [(section, found[section]) for section in _SECTION_KEYS if section in found]
    for key in _DECK_KEYS:
        if key in value:
            inner = _json_sections(value[key], depth + 1, path)
            if inner is not None:
                if path is not None:
                    path.append((value, key))
                return inner
    return None


def _unread(path: Path) -> list[Problem]:
    """What a deck's objects hold that was not read (``path``, :func:`_json_sections`): a list of card
    entries under another key (``"cards"`` beside the sections), or a section that is not a list. Keys
    of other values (a player's name, a record, a list of tags) are the export's own and not looked at."""
    problems: list[Problem] = []
    for owner, used in path:
        for key, value in owner.items():
            if key == used or (used is None and isinstance(value, list) and _section_of(key) is not None):
                continue
            if used is None and _section_of(key) is not None:
                what = f"a section that is not a list of card entries ({type(value).__name__})"
            elif isinstance(value, list) and any(isinstance(e, dict) and "count" in e for e in value):
                what = (
                    f"{len(value)} entries that were not read (a deck is read from one place: its sections or one list)"
                )
            else:
                continue
            problems.append(Problem("unparsed-line", f'The JSON deck\'s "{shorten(key, 30)}" holds {what}.'))
    return problems


#: a deck of a JSON text: (player name or None, its sections, the objects it was read from)
JsonDeck = tuple["str | None", list[tuple["str | None", list[Any]]], Path]


def _deck_of(item: object) -> JsonDeck | None:
    """The deck an object of the JSON holds, with its path; None for none."""
    path: Path = []
    sections = _json_sections(item, 0, path) if isinstance(item, dict) else None
    return None if sections is None else (_player(item), sections, path)  # type: ignore[arg-type]


def _json_decks(data: object) -> tuple[list[JsonDeck], int] | None:
    """Every deck of the JSON, and how many items of an array of decks are no deck (none is read);
    None for no known shape."""
    if isinstance(data, dict):
        deck = _deck_of(data)
        return None if deck is None else ([deck], 0)
    if not isinstance(data, list) or not data:
        return None
    decks = [deck for deck in map(_deck_of, data) if deck is not None]
    if decks:
        return decks, len(data) - len(decks)
    if all(isinstance(item, dict) and "count" in item for item in data[:1]):
        return [(None, [(None, data)], [])], 0  # a bare array of entries
    return None


def _player(item: dict[str, Any]) -> str | None:
    for key in _PLAYER_KEYS:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


#: the longest text whose JSON value :func:`_load_json` keeps: the decklist size limit
#: (``limits.MAX_DECKLIST_BYTES``, which imports this module; tests/decklist/test_jsondeck.py holds them equal)
KEEP_MAX_CHARS = 64 * 1024
#: the last text :func:`_load_json` read (the object itself) and what it answered: a request checks a JSON
#: deck's size (its card entries, ``limits.line_limit``) and then reads its rows (:func:`read_json`) from
#: the same text, which is decoded once. One entry, of a text within the size limit; no reader changes it.
_last: tuple[str, tuple[object, Problem | None]] | None = None


def _load_json(text: str) -> tuple[object, Problem | None]:
    """The JSON value of ``text``, or the problem that stops it being read (the last text's answer
    again when ``text`` is that text: :data:`_last`)."""
    global _last
    last = _last
    if last is not None and last[0] is text:
        return last[1]
    loaded = _decode(text)
    if len(text) <= KEEP_MAX_CHARS:
        _last = (text, loaded)  # one assignment: a thread reads the pair of one text
    return loaded


def _decode(text: str) -> tuple[object, Problem | None]:
    try:
        return json.loads(text), None
    except json.JSONDecodeError as err:
        message = (
            f"The deck starts with {text.lstrip()[:1]} but is not valid JSON: {err.msg} at line {err.lineno}, "
            f"column {err.colno}."
        )
    except RecursionError:
        message = (
            f"The deck starts with {text.lstrip()[:1]} but could not be read as JSON: its arrays and "
            "objects are nested too deeply to read (a deck nests a few levels)."
        )
    except ValueError:  # the only other: a whole number longer than Python converts
        message = (
            f"The deck starts with {text.lstrip()[:1]} but could not be read as JSON: it has a number of "
            f"more than {sys.get_int_max_str_digits():,} digits."
        )
    return None, Problem("unparsed-line", message, lines=(1,))


def json_entries(text: str) -> int:
    """The card entries of a JSON deck (every player's), which count toward the line limit; 0
    for a text that is no JSON deck of a known shape."""
    text = text.removeprefix("\ufeff")
    if not looks_like_json(text):
        return 0
    data, problem = _load_json(text)
    found = None if problem else _json_decks(data)
    return sum(len(entries) for _, sections, _path in (found[0] if found else ()) for _, entries in sections)


def looks_like_json(text: str) -> bool:
    """Whether :func:`parse` reads ``text`` (a BOM removed) as JSON: ``{`` first, or ``[`` followed
    by ``{``, ``[`` or ``]`` (a text list never starts so)."""
    first = text[:1]
    if first != "{" and first != "[" and not first.isspace():
        return False  # the usual text list: no pattern needed to tell
    return _JSON_START.match(text) is not None


def read_json(text: str) -> tuple[list[Problem], list[CardRow]]:
    """Read a JSON deck of any shape in :data:`JSON_SHAPES`: its problems and its card rows (as
    :func:`deckcheck.decklist.parse.read` gives them); never raises."""
    problems: list[Problem] = []
    rows: list[CardRow] = []
    data, problem = _load_json(text)
    if problem is not None:
        problems.append(problem)
        return problems, rows
    shape = _json_decks(data)
    if shape is None:
        message = f"The JSON is not a deck in a shape deckcheck reads; it reads {JSON_SHAPES}."
        problems.append(Problem("json-shape", message, lines=(1,)))
        return problems, rows
    decks, others = shape
    player, sections, path = decks[0]
    if len(decks) > 1 or others:
        who = f" ({shorten(player)}'s)" if player else ""
        also = f" and {plural(others, 'item')} that {'is' if others == 1 else 'are'} no deck" if others else ""
        if len(decks) > 1:
            message = (
                f"The JSON holds {len(decks)} decks (an event export){also}; only the first{who} was checked. "
                "Check one player's deck at a time to see the others."
            )
        else:
            message = f"The JSON holds one deck{who}{also}; only the deck was checked."
        problems.append(Problem("several-decks", message))
    problems.extend(_unread(path))
    index = 0
    for section, entries in sections:
        for entry in entries:
            index += 1
            found = _json_entry(index, entry, section)
            if isinstance(found, Problem):
                problems.append(found)
            else:
                rows.append(found)
    return problems, rows


def _json_entry(index: int, entry: object, section: str | None = None) -> CardRow | Problem:
    """One entry of a JSON deck as a card row, or the first thing wrong with it."""
    raw = _json_text(entry)
    view = _json_view(entry)
    fault = _json_fault(entry if view is None else view)
    if fault or view is None:
        return Problem("unparsed-line", f"Entry {index} of the JSON deck {fault}.", lines=(index,))
    code = (view.get("set") or "").strip().upper() or None
    number = view.get("number")
    number = (str(number) if isinstance(number, int) else number.strip()) if number is not None else None
    name, tag = view["name"].strip(), None
    if " - " in name or " – " in name:  # RK9's "Fighting Energy - Basic", "Prime Catcher - ACESPEC"
        tokens = name.split()
        tag, kept = take_tag(tokens)
        name = " ".join(tokens[:kept]) if tag else name
    return index, section, row_fields(raw, view["count"], name, code, number or None, tag)


def _json_view(entry: object) -> dict[str, Any] | None:
    """An entry as ``{"count", "name", "set", "number"}``: RK9's ``card`` object and ``setCode``,
    and a pokemontcg.io ``set`` object's ``ptcgoCode``, read into place; None for a non-object."""
    if not isinstance(entry, dict):
        return None
    card = entry.get("card")
    inner = card if isinstance(card, dict) else entry
    view = {
        "count": entry.get("count"),
        "name": inner.get("name"),
        "set": inner.get("set"),
        "number": inner.get("number"),
    }
    if view["set"] is None and "setCode" in inner:
        view["set"] = inner["setCode"]
    if isinstance(view["set"], dict):
        view["set"] = view["set"].get("ptcgoCode")
    card_id = inner.get("id")
    if view["set"] is None and view["number"] is None and isinstance(card_id, str):
        m = _CARD_ID.fullmatch(card_id.strip())
        if m:  # a pokemontcg.io id, "base1-24": its set id and collector number
            view["set"], view["number"] = m.group(1), m.group(2)
    return view


def _json_fault(entry: object) -> str | None:
    """What makes a JSON entry unusable, as the end of a sentence, or None."""
    if not isinstance(entry, dict):
        return f"is not an object: {shorten(_json_text(entry))}"
    count = entry.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COPIES:
        return f"has count {shorten(_json_text(count), 20)}; a count is a whole number from 1 to {MAX_COPIES}"
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        return "has no card name"
    if not isinstance(entry.get("set"), (str, type(None))):
        return 'has a "set" that is not text'
    number = entry.get("number")
    if isinstance(number, bool) or not isinstance(number, (str, int, type(None))):
        return 'has a "number" that is neither text nor a whole number'
    return None


def _json_text(value: object) -> str:
    """Compact JSON for a value read from JSON (so it always serialises)."""
    try:
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    except (ValueError, RecursionError):
        return type(value).__name__
