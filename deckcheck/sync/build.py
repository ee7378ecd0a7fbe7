"""Turn source card records into the compact database that the service ships.

Used by ``deckcheck db build --from PATH`` (the merged catalogue in
``cards.json.gz``) and by ``deckcheck db sync`` (TCGdex records mapped to the
same shape first). The output keeps card facts and a fingerprint of the
functional text, never the text itself; its row layout and the data tables it reads
are described by :mod:`deckcheck.cards.files`. The reviewed tables are held against the source
by :mod:`deckcheck.sync.reviewed`; the database file is written by :mod:`deckcheck.sync.write`.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..cards import bypass, deckrules
from ..cards.files import FIELDS, PRINTING_RELEASES, SCHEMA_VERSION
from ..names import BASIC_ENERGY_NAME, expand_symbols, fold, name_key
from . import reviewed
from .promos import printing_releases
from .reprints import apply_verdicts
from .tables import BuildError, read_table

#: what TCGdex writes where it lacks a card's text
MISSING_TEXT = "$$$CARD.RULES.MISSING.TOKEN$$$"
_WORDS = re.compile(r"[^0-9a-z]+")


def normalise_text(text: str, rewordings: Sequence[tuple[str, str]] = ()) -> str:
    """Lower-case words only, energy symbols spelled out, known rewordings applied.

    A rewording may delete a phrase (reminder text), so spaces are tidied afterwards.
    """
    text = expand_symbols(fold(text)).lower().replace("×", "x")
    text = " ".join(w for w in _WORDS.split(text) if w)
    if not rewordings:
        return text
    text = f" {text} "
    for old, new in rewordings:
        text = text.replace(f" {old} ", f" {new} " if new else " ")
    return " ".join(text.split())


def _functional_parts(card: dict, rewordings) -> list:
    norm = lambda s: normalise_text(s or "", rewordings)  # noqa: E731
    if card["supertype"] == "Pokémon":
        return [
            card.get("hp"),
            sorted(card.get("types") or []),
            [(norm(a.get("name")), norm(a.get("effect"))) for a in card.get("abilities") or []],
            [
                (
                    norm(a.get("name")),
                    sorted(a.get("cost") or []),
                    norm(str(a.get("damage") or "")),
                    norm(a.get("effect")),
                )
                for a in card.get("attacks") or []
            ],
            sorted(norm(w.get("type")) + norm(w.get("value")) for w in card.get("weaknesses") or []),
            sorted(norm(w.get("type")) + norm(w.get("value")) for w in card.get("resistances") or []),
            card.get("retreat"),
        ]
    effect = card.get("effect")
    if effect and MISSING_TEXT in effect:  # a TCGdex placeholder (Mustard BRS TG27): the rules lines say it
        effect = " ".join(card.get("rules") or [])
    return [norm(effect)]


def fingerprint(card: dict, subtypes: list[str], rewordings=()) -> str | None:
    """A short hash of what the card does; None when the source has no text for it."""
    parts = _functional_parts(card, rewordings)
    if parts == [""]:
        return None
    kind = [t for t in subtypes if t in ("ACE SPEC", "Item", "Supporter", "Stadium", "Pokémon Tool", "Special")]
    blob = json.dumps([card["supertype"], name_key(card["name"]), sorted(kind), parts], ensure_ascii=False)
    return hashlib.sha1(blob.encode("utf-8")).hexdigest()[:16]


def is_basic_energy(card: dict) -> bool:
    """Basic Energy is decided from the name and the absence of text, never from ``energyType``."""
    if card["supertype"] != "Energy":
        return False
    return (
        bool(BASIC_ENERGY_NAME.fullmatch(card["name"].strip())) and not card.get("effect") and not card.get("attacks")
    )


def _fixed_subtypes(card: dict, ace_spec_ids: set[str]) -> list[str]:
    subtypes = list(card.get("subtypes") or [])
    if card["supertype"] == "Energy":
        # several Special Energies come as basic in the source (energyType "Normal")
        subtypes = [t for t in subtypes if t not in ("Basic", "Special")]
        subtypes.insert(0, "Basic" if is_basic_energy(card) else "Special")
    if (card["id"] in ace_spec_ids or card.get("rarity") == "ACE SPEC Rare") and "ACE SPEC" not in subtypes:
        subtypes.append("ACE SPEC")
    if card["name"].startswith("Radiant ") and card["supertype"] == "Pokémon" and "Radiant" not in subtypes:
        subtypes.append("Radiant")
    if card["name"].rstrip().endswith("◇") and "Prism Star" not in subtypes:
        subtypes.append("Prism Star")
    return subtypes


_NAME_TAG = re.compile(r"\s+Team Flare (?:Hyper )?Gear$")


def _fixed_name(card: dict) -> dict:
    """TCGdex appends the "Team Flare Gear" label to five Phantom Forces Trainer names
    (``Robo Substitute Team Flare Gear``); the card's name is ``Robo Substitute``."""
    name = _NAME_TAG.sub("", card["name"]) if isinstance(card.get("name"), str) else card.get("name")
    return card if name == card.get("name") else {**card, "name": name}


def build(
    source: dict,
    directory: Path | None = None,
    built_at: str | None = None,
    splits: list[str] | None = None,
    local_codes: dict[str, dict[str, str]] | None = None,
) -> dict:
    """Build the database dict from a merged catalogue (``cards.json.gz`` shape).

    With a ``splits`` list, same-name text splits with no verdict do not fail the build:
    every split is described in the list instead (:mod:`deckcheck.sync.reprints`).
    ``local_codes`` (set id -> {language: code}, :func:`deckcheck.sync.localnames.local_codes`)
    are the sets' printed codes in other languages, kept on their records.

    :raises BuildError: when the source or a data table is broken.
    """
    try:
        sets, cards, meta = source["sets"], source["cards"], source.get("meta", {})
    except (KeyError, TypeError) as exc:
        raise BuildError("source must be an object with 'sets' and 'cards'") from exc
    _check_records(sets, cards)
    rewordings = [(normalise_text(r["old"]), normalise_text(r["new"])) for r in read_table("rewordings.csv", directory)]
    sets_by_code: dict[str, list[str]] = {}
    for s in sets:
        for code in {s.get("ptcgl_code") or "", *s.get("code_aliases", [])} - {""}:
            sets_by_code.setdefault(code.upper(), []).append(s["id"])
    cards = [_fixed_name(card) for card in cards]
    ace_ids = reviewed.ace_spec_ids(cards, sets_by_code, directory)
    rules_table = deckrules.read_rows(read_table(deckrules.TABLE, directory))
    categories = reviewed.deck_rule_categories(cards, rules_table)
    reviewed.check_bypasses(cards, bypass.read_rows(read_table(bypass.TABLE, directory)))
    rows = _card_rows(cards, ace_ids, categories, rewordings)
    # the reviewed verdicts join reworded groups; then functional-exceptions.csv splits its
    # variants off (a variant is a verdict of its own) and checks its pairs stay apart
    apply_verdicts(
        cards,
        rows,
        {s["id"]: s.get("ptcgl_code") or "" for s in sets},
        directory,
        splits,
        {s["id"]: s.get("releaseDate") or "" for s in sets},
    )
    reviewed.check_apart(reviewed.apply_exceptions(rows, sets_by_code, directory))
    reviewed.keep_apart_not_tournament(rows, categories)
    reviewed.audit_names(rows, directory)
    out_sets = [_set_record(s, (local_codes or {}).get(s["id"])) for s in sets]
    return {
        "schema": SCHEMA_VERSION,
        "meta": {
            "built_at": built_at or dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "sources": {
                "tcgdex": meta.get("tcgdex_commit"),
                "pokemon-tcg-data": meta.get("ptcgio_commit"),
            },
            "cards": len(rows),
            "sets": len(out_sets),
            "newest_set": newest_set(out_sets, rows),
        },
        "fields": list(FIELDS),
        "sets": out_sets,
        "cards": rows,
        PRINTING_RELEASES: printing_releases(out_sets, rows),
    }


def _card_rows(
    cards: list[dict], ace_ids: set[str], categories: dict[str, list[str]], rewordings: list[tuple[str, str]]
) -> list[list]:
    """One database row per card (:data:`FIELDS`), with the data fixes and its fingerprint; a
    printing with no text borrows one (:func:`_borrow_fingerprints`)."""
    rows = []
    pending_text = []
    for card in cards:
        subtypes = _fixed_subtypes(card, ace_ids)
        reviewed.apply_category(card, subtypes, categories.get(card["id"], ()))
        fp = fingerprint(card, subtypes, rewordings)
        row = [
            card["id"],
            card["name"],
            card["supertype"],
            subtypes,
            card.get("evolvesFrom"),
            card.get("types") or [],
            (card.get("regulationMark") or "").upper() or None,
            card["set_id"],
            str(card.get("number") or card.get("localId") or ""),
            card.get("rarity"),
            fp,
        ]
        rows.append(row)
        if fp is None:
            pending_text.append((row, card))
    _borrow_fingerprints(rows, pending_text)
    return rows


def _set_record(s: dict, local_codes: dict[str, str] | None = None) -> dict:
    """A set of the source as the database records it (with its codes in other languages, when
    it has any: ``{"fr": "E&V"}``)."""
    record = {
        "id": s["id"],
        "name": s["name"],
        "series": s.get("series_id"),
        "code": s.get("ptcgl_code"),
        "aliases": sorted(set(s.get("code_aliases") or [])),
        "release": s.get("releaseDate"),
        "official_count": s.get("official_count"),
        "image": set_image_path(s),
    }
    if local_codes:
        record["local_codes"] = dict(sorted(local_codes.items()))
    return record


def set_image_path(s: dict) -> str | None:
    """Where a set's card images live under the image host, e.g. ``en/sv/sv01``.

    TCGdex gives each card an ``image`` base URL, ``<assets host>/<lang>/<serie id>/<set id>/<local
    id>`` (a quality and an extension, ``/low.webp``, are appended to fetch it). A sync takes the
    set's path from its cards' URLs (``image`` on the set record, None when no card has one); the
    shipped snapshot dropped the field, so it is derived from the serie and set ids. A card's own
    URL adds its local id, the part of its TCGdex id after ``<set id>-`` (see ``cards.Card``), so
    no card row stores anything for its image.
    """
    if "image" in s:
        return s["image"] or None
    series = s.get("series_id")
    if not series or not s.get("id"):
        return None
    return f"en/{series}/{s['id']}"


def newest_set(sets: list[dict], rows: list[list]) -> dict | None:
    """The latest-released set that has cards, as the database's meta records it
    (``{"id", "name", "code", "release"}``); an announced set with no cards does not count.
    :meth:`deckcheck.cards.CardDB.newest_set` picks the same set when it loads the file."""
    with_cards = {row[7] for row in rows}
    dated = [s for s in sets if s.get("release") and s["id"] in with_cards]
    if not dated:
        return None
    s = max(dated, key=lambda s: (s["release"], s.get("official_count") or 0, s["id"]))
    return {"id": s["id"], "name": s["name"], "code": s.get("code"), "release": s["release"]}


def _check_records(sets: list[dict], cards: list[dict]) -> None:
    """Every card names an id, a name, a supertype and a set of the source."""
    set_ids = {s.get("id") for s in sets}
    for card in cards:
        if not isinstance(card, dict) or not card.get("id") or not card.get("name"):
            raise BuildError(f"card record without id or name: {str(card)[:80]}")
        if card.get("supertype") not in ("Pokémon", "Trainer", "Energy"):
            raise BuildError(f"card {card['id']} has no valid supertype: {card.get('supertype')!r}")
        if card.get("set_id") not in set_ids:
            raise BuildError(f"card {card['id']} names unknown set {card.get('set_id')!r}")


def _borrow_fingerprints(rows: list[list], pending: list[tuple[list, dict]]) -> None:
    """A printing with no text in the source takes the fingerprint of a same-name printing
    in the same set (secret-rare reprints), else one made from its rules lines, else
    one made from its name alone (marked ``name:``)."""
    fp_at = FIELDS.index("fingerprint")
    by_set_name: dict[tuple[str, str], str] = {}
    for row in rows:
        if row[fp_at]:
            by_set_name.setdefault((row[7], name_key(row[1])), row[fp_at])
    for row, card in pending:
        rules = " ".join(card.get("rules") or [])
        row[fp_at] = by_set_name.get((row[7], name_key(row[1]))) or (
            "rules:" + hashlib.sha1(normalise_text(rules).encode()).hexdigest()[:10]
            if rules
            else "name:" + hashlib.sha1(name_key(row[1]).encode()).hexdigest()[:11]
        )


def load_source(path: str | os.PathLike) -> dict:
    """Read a merged catalogue, gzip or plain JSON."""
    path = Path(path)
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BuildError(f"cannot read card source {path}: {exc}") from exc


def iter_rows(db: dict) -> Iterable[dict]:
    """The card rows as dicts (for tests and tools)."""
    for row in db["cards"]:
        yield dict(zip(db["fields"], row, strict=False))
