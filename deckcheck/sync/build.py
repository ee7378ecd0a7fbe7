"""Turn source card records into the compact database that the service ships.

Used by ``deckcheck db build --from PATH`` (the merged catalogue in
``cards.json.gz``) and by ``deckcheck db sync`` (TCGdex records mapped to the
same shape first). The output keeps card facts and a fingerprint of the
functional text, never the text itself; its row layout and the data tables it reads
are described by :mod:`deckcheck.cards.files`.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..cards import bypass, deckrules
from ..cards.files import FIELDS, SCHEMA_VERSION, database_json
from ..names import BASIC_ENERGY_NAME, expand_symbols, fold, name_key
from . import nameaudit
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


def _ace_spec_ids(cards: list[dict], sets_by_code: dict[str, list[str]], directory: Path | None) -> set[str]:
    """Printing ids listed in ``data/ace-spec.csv`` (the Black & White ones carry no flag)."""
    wanted = {}
    for row in read_table("ace-spec.csv", directory):
        for set_id in sets_by_code.get(row["set_code"].upper(), []):
            wanted[(set_id, row["number"].lstrip("0"))] = row["name"]
    found, matched = set(), set()
    for card in cards:
        key = (card["set_id"], str(card.get("number", "")).lstrip("0"))
        if key in wanted:
            if name_key(card["name"]) != name_key(wanted[key]):
                raise BuildError(f"ace-spec.csv names {wanted[key]!r} but {card['id']} is {card['name']!r}")
            found.add(card["id"])
            matched.add(wanted[key])
    missing = set(wanted.values()) - matched
    if missing:
        raise BuildError(f"ace-spec.csv rows match no card: {sorted(missing)}")
    return found


_NAME_TAG = re.compile(r"\s+Team Flare (?:Hyper )?Gear$")


def _fixed_name(card: dict) -> dict:
    """TCGdex appends the "Team Flare Gear" label to five Phantom Forces Trainer names
    (``Robo Substitute Team Flare Gear``); the card's name is ``Robo Substitute``."""
    name = _NAME_TAG.sub("", card["name"]) if isinstance(card.get("name"), str) else card.get("name")
    return card if name == card.get("name") else {**card, "name": name}


def _printing_rows(rows: list[list], sets_by_code: dict[str, list[str]], code: str, number: str) -> list[list] | None:
    """Rows of one printing by set code and number; None when the source has no set with that code."""
    set_ids = sets_by_code.get(code.upper())
    if not set_ids:
        return None
    number = number.lstrip("0").upper()
    return [r for r in rows if r[7] in set_ids and r[8].lstrip("0").upper() == number]


def _apply_exceptions(rows: list[list], sets_by_code: dict[str, list[str]], directory: Path | None) -> list[tuple]:
    """Apply ``data/functional-exceptions.csv``: split variants off; answer the reviewed pairs
    that must keep apart (for :func:`_check_apart`).

    A row whose set is not in the source is skipped (a partial source still builds); a row
    whose set is present but whose printing or name is wrong is a :class:`BuildError`.
    """
    fp_at = FIELDS.index("fingerprint")
    pairs = []
    for row in read_table("functional-exceptions.csv", directory):
        where = f"functional-exceptions.csv: {row['name']} {row['set_code']} {row['number']}"
        found = _printing_rows(rows, sets_by_code, row["set_code"], row["number"])
        if found is None:
            continue
        if not found:
            raise BuildError(f"{where}: no such printing in the source")
        key = name_key(row["name"])
        named = [r for r in found if name_key(r[1]) == key]  # a code can name several sets (TR)
        if not named:
            raise BuildError(f"{where}: that printing is {found[0][1]!r}")
        for r in named:
            if row.get("variant"):
                r[fp_at] = hashlib.sha1(f"{r[fp_at]}|{row['variant']}".encode()).hexdigest()[:16]
        if row.get("not_same_as"):
            code, _, number = row["not_same_as"].rpartition(" ")
            other = _printing_rows(rows, sets_by_code, code, number)
            other = other if other is None else [r for r in other if name_key(r[1]) == key]
            if other == []:
                raise BuildError(f"{where}: not_same_as {row['not_same_as']} is no printing of that name in the source")
            if other:
                pairs.append((where, row["not_same_as"], named, other))
    return pairs


def _check_apart(pairs: list[tuple]) -> None:
    fp_at = FIELDS.index("fingerprint")
    for where, other_label, found, other in pairs:
        if {r[fp_at] for r in found} & {r[fp_at] for r in other}:
            raise BuildError(f"{where} and {other_label} still share a fingerprint; give the row a variant")


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
    ace_ids = _ace_spec_ids(cards, sets_by_code, directory)
    rules_table = deckrules.read_rows(read_table(deckrules.TABLE, directory))
    categories = _deck_rule_categories(cards, rules_table)
    _check_bypasses(cards, bypass.read_rows(read_table(bypass.TABLE, directory)))
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
    _check_apart(_apply_exceptions(rows, sets_by_code, directory))
    audit_names(rows, directory)
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
        _apply_category(card, subtypes, categories.get(card["id"], ()))
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


def audit_names(rows: list[list], directory: Path | None = None) -> None:
    """Fail on any two printed names the name key merges without a reviewed row
    (``data/name-merges.csv``, ``data/name-parts.csv``; see :mod:`deckcheck.sync.nameaudit`)."""
    try:
        nameaudit.check(
            ((r[1], r[2]) for r in rows),
            read_table("name-merges.csv", directory),
            read_table("name-parts.csv", directory),
        )
    except nameaudit.NameAuditError as exc:
        raise BuildError(str(exc)) from exc


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


#: the subtype a reviewed row's card must carry once the data fixes are applied
_KIND_SUBTYPE = {
    "ace-spec": "ACE SPEC",
    "radiant": "Radiant",
    "prism-star": "Prism Star",
    "star-limit": "Star",
    "special-energy": "Special",
    "basic-pokemon": "Basic",
}


def _deck_rule_categories(cards: list[dict], table: list) -> dict[str, list[str]]:
    """Scan every card for deck-building clauses and category traps (:mod:`deckcheck.cards.deckrules`);
    any finding missing from ``data/deck-rules.csv`` is a :class:`BuildError`. Returns card id ->
    the kinds of its rows."""
    scanned = []
    try:
        for card in cards:
            scanned.extend(deckrules.scan_card(card, list(card.get("subtypes") or [])))
    except ValueError as exc:
        raise BuildError(
            f"{exc}; review it and add a row to {deckrules.TABLE} (deckcheck/cards/deckrules.py)"
        ) from None
    errors = deckrules.compare(scanned, table, {card["id"]: card["name"] for card in cards})
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        raise BuildError(f"{len(errors)} deck-building finding(s) disagree with {deckrules.TABLE}:\n  {shown}")
    out: dict[str, list[str]] = {}
    for row in table:
        out.setdefault(row.id, []).append(row.kind)
    return out


def _check_bypasses(cards: list[dict], table: list[bypass.Finding]) -> None:
    """Scan every card for sentences that reach Evolution Pokémon without evolving
    (:mod:`deckcheck.cards.bypass`); a finding missing from ``data/evolution-bypass.csv``, or a row the
    scan no longer finds, is a :class:`BuildError`."""
    scanned = [finding for card in cards for finding in bypass.scan_card(card)]
    with_text = {card["name"] for card in cards if any(True for _ in bypass.texts(card))}
    errors = bypass.compare(scanned, table, with_text)
    if errors:
        shown = "\n  ".join(errors[:20]) + (f"\n  ... and {len(errors) - 20} more" if len(errors) > 20 else "")
        raise BuildError(f"{len(errors)} finding(s) disagree with {bypass.TABLE}:\n  {shown}")


def _apply_category(card: dict, subtypes: list[str], kinds) -> None:
    """A reviewed row's category, applied to ``subtypes`` in place: a Baby Pokémon is Basic, a
    Pokémon ☆ is ``Star``; the other kinds are checked to be right already."""
    for kind in kinds:
        wanted = _KIND_SUBTYPE.get(kind)
        if wanted is None or wanted in subtypes:
            continue
        if kind == "basic-pokemon":
            subtypes.insert(0, "Basic")
        elif kind == "star-limit":
            subtypes.append("Star")
        else:
            raise BuildError(
                f"{deckrules.TABLE}: {card['id']} {card['name']} is listed as {kind} but has no "
                f"{wanted!r} subtype after the data fixes ({subtypes})"
            )


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


def write_database(db: dict, path: str | os.PathLike) -> None:
    """Write atomically: a temporary file beside the target, then a rename. The file carries the
    lookup index of its cards (:mod:`deckcheck.cards.index`), made here, so loading it computes none;
    its pack (:mod:`deckcheck.cards.pack`, ``<name>.pack``), written first, holds the same in columns
    for a fast start-up (the rows are checked before anything is written)."""
    from ..cards.index import build_index
    from ..cards.pack import check_rows, encode, pack_path

    releases = {s["id"]: s.get("release") or "" for s in db["sets"]}
    try:
        check_rows(db["cards"], releases.keys())
    except ValueError as exc:
        raise BuildError(f"the database cannot be written: {exc}") from exc
    db = {**db, "index": build_index(db["cards"], releases)}
    path = Path(path)
    payload = json.dumps(db, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as gz:
        gz.write(payload)
    blob = out.getvalue()
    try:
        pack = encode(db, hashlib.sha256(blob).hexdigest())
    except ValueError as exc:
        raise BuildError(f"the database cannot be written: {exc}") from exc
    write_atomically(pack, pack_path(path))
    write_atomically(blob, path)


def write_pack(path: str | os.PathLike, target: str | os.PathLike | None = None) -> None:
    """Write the pack of the database file at ``path`` (read as :func:`deckcheck.cards.load`
    reads it; its index made again here) beside ``target`` (default: ``path``), for the file
    ``path`` becomes there: ``db pull`` fetches a database, never a pack."""
    from .. import cards
    from ..cards.index import build_index
    from ..cards.pack import encode, pack_path

    blob = Path(path).read_bytes()
    try:
        raw = json.loads(database_json(blob))
        cards.from_dict(raw, "-", str(path))  # every check of a load from the JSON
        raw["index"] = build_index(raw["cards"], {s["id"]: s.get("release") or "" for s in raw["sets"]})
        pack = encode(raw, hashlib.sha256(blob).hexdigest())
    except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError, cards.DatabaseError) as exc:
        raise BuildError(f"cannot write the pack of {path}: {exc}") from exc
    write_atomically(pack, pack_path(target or path))


def write_atomically(data: bytes, path: str | os.PathLike) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as raw:
            raw.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def iter_rows(db: dict) -> Iterable[dict]:
    """The card rows as dicts (for tests and tools)."""
    for row in db["cards"]:
        yield dict(zip(db["fields"], row, strict=False))
