"""TCGdex records -> the merged-catalogue shape that ``db build`` reads, and the new database.

Names as printed, pokemontcg.io-style subtypes, PTCGL set codes and upper-case marks (see
PROVENANCE.md); then :func:`deckcheck.sync.build.build` on it, so fingerprints and data fixes are
the same as ``db build``'s. What TCGdex cannot tell (the pokemon-tcg-data subtypes such as Tera or
Fusion Strike, pokemon-tcg-data collector numbers, PTCGL set codes, a mark TCGdex lacks) is carried
over from the current database for cards and sets it already has.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter, defaultdict
from pathlib import Path
from urllib.parse import urlsplit

from ..cards import CardDB
from ..cards.files import FIELDS, PRINTING_RELEASES
from .build import build, is_basic_energy, newest_set, read_table
from .promos import printing_releases
from .tcgdex import Catalogue

#: ids of the records only pokemon-tcg-data has (``db build`` merged them in; TCGdex never brings them)
PTCGIO_ONLY_PREFIX = "ptcgio:"

SUPERTYPE = {"Pokemon": "Pokémon", "Trainer": "Trainer", "Energy": "Energy"}
STAGE_MAP = {
    "Basic": "Basic",
    "Stage1": "Stage 1",
    "Stage2": "Stage 2",
    "BREAK": "BREAK",
    "LEVEL-UP": "Level-Up",
    "MEGA": "MEGA",
    "VMAX": "VMAX",
    "VSTAR": "VSTAR",
    "V-UNION": "V-UNION",
    "RESTORED": "Restored",
    "Baby": "Baby",
}
TRAINER_MAP = {
    "Item": "Item",
    "Supporter": "Supporter",
    "Stadium": "Stadium",
    "Tool": "Pokémon Tool",
    "Ace Spec": "ACE SPEC",
    "Technical Machine": "Technical Machine",
    "Goldenrod Game Corner": "Goldenrod Game Corner",
    "Rocket's Secret Machine": "Rocket's Secret Machine",
}
TAG_TEAM_SUPPORTER_SETS = frozenset({"sm9", "sm10", "sm11", "sm115", "sm12", "smp"})
_HYPHEN = re.compile(r"^(.*\S) (EX|GX)$")


def official_name(card: dict) -> str:
    """``Shaymin EX`` -> ``Shaymin-EX`` (BW-SM style, as printed), ``’`` -> ``'``; ``ex`` stays."""
    name = card["name"].replace("’", "'")
    if card.get("category") == "Pokemon":
        m = _HYPHEN.match(name)
        if m:
            return f"{m.group(1)}-{m.group(2)}"
    return name


def normalise_mark(value) -> str | None:
    """Upper-case; TCGdex's ``"None"`` and the lower-case ``j`` of one MEP card are fixed here."""
    if value is None or str(value).strip().lower() in ("", "none", "null"):
        return None
    return str(value).strip().upper()


def collector_number(local_id: str) -> str:
    return (local_id.lstrip("0") or "0") if local_id.isdigit() else local_id


def derive_subtypes(card: dict, serie_id: str | None, stage_by_name: dict[str, str]) -> list[str]:
    """pokemontcg.io-style subtypes from TCGdex stage/suffix/trainerType/rarity and the name.

    The same rules as the merged catalogue's ``derived`` subtypes; Tera, Ancient, Future,
    the Strike styles, Ultra Beast and Team Plasma cannot be seen here.
    """
    name = official_name(card)
    cat = card.get("category")
    out: list[str] = []
    if cat == "Pokemon":
        out = _pokemon_subtypes(card, name, serie_id, stage_by_name)
    elif cat == "Trainer":
        out = _trainer_subtypes(card, name)
    elif cat == "Energy":
        out = _energy_subtypes(card, name)
    if "ACE SPEC" in (card.get("rarity") or "") and "ACE SPEC" not in out:
        out.append("ACE SPEC")
    return list(dict.fromkeys(out))  # each once, in order


def _pokemon_tag(name: str, suffix: str | None) -> str | None:
    """The mechanic a Pokémon's name (or TCGdex suffix) carries: ``ex``, ``EX``, ``GX``, ``V``..."""
    if name.endswith(" ex") or " ex " in name:
        return "ex"
    if name.endswith("-EX") or name.endswith(" EX"):
        return "EX"
    if "TAG TEAM" in (suffix or "") or ("&" in name and name.endswith("GX")):
        return "TAG TEAM-GX"
    for tag in ("GX", "VMAX", "VSTAR", "V-UNION"):
        if name.endswith(tag):
            return tag
    if name.endswith(" V"):
        return "V"
    return suffix if suffix in ("SP", "Prime", "Legend") else None


def _pokemon_stage(card: dict, name: str, tag: str | None, stage_by_name: dict[str, str]) -> str | None:
    """TCGdex's stage; where it is empty (many EX/GX cards), inferred from the evolution line."""
    stage = STAGE_MAP.get(card.get("stage") or "")
    if stage is None or stage == "MEGA" and tag == "ex":
        pre = card.get("evolveFrom")
        if not pre:
            stage = "Basic" if not (name.startswith("M ") or tag in ("VMAX", "VSTAR", "V-UNION")) else stage
        else:
            stage = {"Basic": "Stage 1", "Stage 1": "Stage 2"}.get(stage_by_name.get(pre, ""), stage or "Stage 1")
    return stage


def _pokemon_subtypes(card: dict, name: str, serie_id: str | None, stage_by_name: dict[str, str]) -> list[str]:
    tag = _pokemon_tag(name, card.get("suffix"))
    stage = _pokemon_stage(card, name, tag, stage_by_name)
    out: list[str] = []
    if tag == "Legend":
        out.append("LEGEND")
    elif stage:
        out.append(stage)
    if name.startswith("M ") and tag == "EX" and "MEGA" not in out:
        out = ["MEGA"]
    if name.startswith("Mega ") and tag == "ex" and "MEGA" not in out:
        out.append("MEGA")
    if tag == "TAG TEAM-GX":
        out += ["TAG TEAM", "GX"]
    elif tag in ("ex", "EX", "GX", "V", "SP", "Prime"):
        out.append(tag)
    elif tag in ("VMAX", "VSTAR", "V-UNION") and tag not in out:
        out.append(tag)
    if name.startswith("Radiant "):
        out.append("Radiant")
    if "◇" in name:
        out.append("Prism Star")
    if "★" in name or "☆" in name or name.endswith(" Star") and serie_id == "ex":
        out.append("Star")
    if serie_id in ("dp", "pl") and re.search(r" (G|GL|C|FB|E4|4)$", name):
        out.append("SP")
    return out


def _trainer_subtypes(card: dict, name: str) -> list[str]:
    out: list[str] = []
    tt = TRAINER_MAP.get(card.get("trainerType") or "")
    if tt == "ACE SPEC":
        out += ["Item", "ACE SPEC"]
    elif tt:
        out.append(tt)
    if tt == "Supporter" and " & " in name and card.get("set_id") in TAG_TEAM_SUPPORTER_SETS:
        out.append("TAG TEAM")
    if "◇" in name:
        out.append("Prism Star")
    return out


def _energy_subtypes(card: dict, name: str) -> list[str]:
    # decided from the name and the absence of text, never from energyType (14 Special Energies say "Normal")
    out = ["Basic" if is_basic_energy({"supertype": "Energy", **card, "name": name}) else "Special"]
    if "◇" in name:
        out.append("Prism Star")
    return out


def _alias_codes(directory: Path | None) -> dict[str, str]:
    """set id -> a plain alias code from ``data/set-aliases.csv`` (no prefix/offset), a last resort."""
    out: dict[str, str] = {}
    for row in read_table("set-aliases.csv", directory):
        sets = (row.get("sets") or "").split()
        if (
            (row.get("action") or "lookup") == "lookup"
            and len(sets) == 1
            and not row.get("prefix")
            and not row.get("offset")
        ):
            out.setdefault(sets[0], row["alias"].upper())
    return out


def _set_codes(s: dict, previous: CardDB | None, alias_codes: dict[str, str]) -> tuple[str | None, list[str]]:
    """PTCGL code and aliases: the current database's for a set it knows (they came from
    pokemon-tcg-data ``ptcgoCode``), else TCGdex ``tcgOnline``, else the official
    abbreviation (``SHF:SV`` -> ``SHF``: sub-sets share the parent code), else
    ``data/set-aliases.csv``."""
    abbr = ((s.get("abbreviation") or {}).get("official") or "").strip() or None
    if abbr and ":" in abbr:
        abbr = abbr.split(":")[0]
    online = (s.get("tcgOnline") or "").strip() or None
    prev = previous.sets.get(s["id"]) if previous else None
    code: str | None
    if prev and prev.code:
        code = prev.code
        aliases = {code, *prev.aliases}
    else:
        code = online or abbr or alias_codes.get(s["id"])
        aliases = {code} if code else set()
    aliases |= {x for x in (abbr, online) if x}
    return code, sorted(aliases)


def _sort_local(local_id: str):
    m = re.match(r"^([A-Za-z-]*)(\d+)(.*)$", local_id)
    return (m.group(1), int(m.group(2)), m.group(3)) if m else (local_id, 0, "")


def set_image_paths(cards: list[dict]) -> dict[str, str]:
    """Set id -> the path of its card images under the image host (``en/sv/sv01``), from the
    first card whose ``image`` URL ends in ``/<set id>/<local id>``; a set none of whose cards
    has an image is left out (the page shows its cards as text)."""
    out: dict[str, str] = {}
    for c in cards:
        set_id, image = c["set"]["id"], c.get("image")
        if set_id in out or not isinstance(image, str):
            continue
        path = urlsplit(image).path.strip("/")
        tail = f"/{set_id}/{c['localId']}"
        if path.endswith(tail) and len(path) > len(tail):
            out[set_id] = path[: -len(c["localId"]) - 1]
    return out


def map_catalogue(
    sets: list[dict], cards: list[dict], previous: CardDB | None = None, directory: Path | None = None
) -> dict:
    """Validated TCGdex sets and cards -> the merged-catalogue dict that :func:`deckcheck.sync.build.build` reads."""
    alias_codes = _alias_codes(directory)
    serie_of = {s["id"]: s["serie"]["id"] for s in sets}
    release = {s["id"]: s.get("releaseDate") or "" for s in sets}
    out_sets = []
    for s in sorted(sets, key=lambda s: (s.get("releaseDate") or "", s["id"])):
        code, aliases = _set_codes(s, previous, alias_codes)
        out_sets.append(
            {
                "id": s["id"],
                "name": s["name"],
                "series_id": s["serie"]["id"],
                "series": s["serie"].get("name"),
                "releaseDate": s.get("releaseDate"),
                "ptcgl_code": code,
                "code_aliases": aliases,
                "official_count": (s.get("cardCount") or {}).get("official"),
            }
        )
    image_of = set_image_paths(cards)
    for rec in out_sets:
        rec["image"] = image_of.get(rec["id"])
    stage_votes: dict[str, Counter] = defaultdict(Counter)
    for c in cards:
        if c["category"] == "Pokemon" and c.get("stage") in STAGE_MAP:
            stage_votes[c["name"]][STAGE_MAP[c["stage"]]] += 1
            stage_votes[official_name(c)][STAGE_MAP[c["stage"]]] += 1
    if previous:
        for pc in previous.cards.values():
            for st in ("Basic", "Stage 1", "Stage 2"):
                if pc.supertype == "Pokémon" and st in pc.subtypes:
                    stage_votes[pc.name][st] += 1
    stage_by_name = {n: v.most_common(1)[0][0] for n, v in stage_votes.items()}
    out_cards = []
    for c in sorted(cards, key=lambda c: (release.get(c["set"]["id"], ""), c["set"]["id"], _sort_local(c["localId"]))):
        set_id = c["set"]["id"]
        supertype = SUPERTYPE[c["category"]]
        prev = previous.cards.get(c["id"]) if previous else None
        if prev is not None and prev.supertype != supertype:
            prev = None  # the record changed kind: nothing of the old one applies
        flat = {**c, "set_id": set_id}
        rec = {
            "id": c["id"],
            "name": official_name(c),
            "supertype": supertype,
            # the current database's subtypes are pokemon-tcg-data's where it had the card (richer)
            "subtypes": list(prev.subtypes) if prev else derive_subtypes(flat, serie_of.get(set_id), stage_by_name),
            "evolvesFrom": c.get("evolveFrom") or (prev.evolves_from if prev else None),
            "hp": c.get("hp"),
            "types": c.get("types"),
            "regulationMark": normalise_mark(c.get("regulationMark")) or (prev.mark if prev else None),
            "set_id": set_id,
            "number": prev.number if prev else collector_number(c["localId"]),
            "localId": c["localId"],
            "rarity": c.get("rarity"),
            "abilities": c.get("abilities"),
            "attacks": [
                {**a, "damage": None if a.get("damage") in (None, "") else str(a["damage"])}
                for a in c.get("attacks") or []
            ]
            or None,
            "effect": c.get("effect"),
            "weaknesses": c.get("weaknesses"),
            "resistances": c.get("resistances"),
            "retreat": c.get("retreat"),
        }
        out_cards.append({k: v for k, v in rec.items() if k == "subtypes" or v not in (None, [], {})})
    return {"meta": {}, "sets": out_sets, "cards": out_cards}


def build_database(
    catalogue: Catalogue,
    previous: CardDB | None,
    source_url: str,
    directory: Path | None = None,
    now: dt.datetime | None = None,
) -> tuple[dict, list[str]]:
    """The database dict for ``catalogue``, plus the ids of rows kept from ``previous``.

    Kept from the current database: the row of a card whose new payload was invalid (a
    bad upstream record never removes a card that decks may use), the records only
    pokemon-tcg-data has (ids ``ptcgio:...``, which ``db build`` merged in and TCGdex
    can never bring), and a text-less card's fingerprint made from pokemon-tcg-data
    rules text.
    :raises BuildError: when the data tables do not fit the catalogue.
    """
    now = now or dt.datetime.now(dt.UTC)
    source = map_catalogue(catalogue.sets, catalogue.cards, previous, directory)
    db = build(source, directory, built_at=now.strftime("%Y-%m-%dT%H:%M:%SZ"))
    carried: list[str] = []
    if previous:
        _keep_text_fingerprints(db, previous)
        set_ids = {s["id"] for s in db["sets"]} | _keep_placeholder_sets(db, catalogue, previous)
        carried = _keep_rows(db, catalogue, previous, set_ids)
        db[PRINTING_RELEASES] = printing_releases(db["sets"], db["cards"])  # the rows carried count too
    db["meta"]["cards"] = len(db["cards"])
    db["meta"]["sets"] = len(db["sets"])
    db["meta"]["newest_set"] = newest_set(db["sets"], db["cards"])
    db["meta"]["sources"] = {"tcgdex": source_url, "base": previous.version if previous else None}
    db["meta"]["synced_at"] = db["meta"]["built_at"]
    return db, carried


def _keep_text_fingerprints(db: dict, previous: CardDB) -> None:
    """A card TCGdex has no text for keeps the fingerprint the current database made from
    pokemon-tcg-data rules text."""
    fp_at = FIELDS.index("fingerprint")
    for row in db["cards"]:
        old = previous.cards.get(row[0])
        if old and row[fp_at].startswith("name:") and old.fingerprint.startswith("rules:"):
            row[fp_at] = old.fingerprint


def _keep_placeholder_sets(db: dict, catalogue: Catalogue, previous: CardDB) -> set[str]:
    """A set the API now lists without usable cards (announced, not filled) keeps what the current
    database has of it: never a lost set or a shrunken catalogue. Returns the ids of the sets kept."""
    set_ids = {s["id"] for s in db["sets"]}
    kept = sorted(set(catalogue.placeholder_sets) & set(previous.sets) - set_ids)
    for set_id in kept:
        old_set = previous.sets[set_id]
        db["sets"].append(
            {
                "id": old_set.id,
                "name": old_set.name,
                "series": old_set.series,
                "code": old_set.code,
                "aliases": list(old_set.aliases),
                "release": old_set.release,
                "official_count": old_set.official_count,
            }
        )
    return set(kept)


def _keep_rows(db: dict, catalogue: Catalogue, previous: CardDB, set_ids: set[str]) -> list[str]:
    """Rows of the current database carried into the new one (in a set it has); returns their ids."""
    have = {row[0] for row in db["cards"]}
    keep = [cid for cid in sorted(catalogue.skipped_card_ids) if cid in previous.cards]
    # records that only pokemon-tcg-data has (ids "ptcgio:..."): TCGdex can never bring them
    keep += [cid for cid in previous.cards if cid.startswith(PTCGIO_ONLY_PREFIX)]
    # the current cards of a set whose payloads are placeholders now
    keep += [cid for cid in catalogue.placeholder_cards if cid in previous.cards]
    keep += [cid for cid, c in previous.cards.items() if c.set_id in catalogue.placeholder_sets]
    carried: list[str] = []
    for card_id in keep:
        old = previous.cards[card_id]
        if card_id not in have and old.set_id in set_ids:
            db["cards"].append(
                [
                    old.id,
                    old.name,
                    old.supertype,
                    list(old.subtypes),
                    old.evolves_from,
                    list(old.types),
                    old.mark,
                    old.set_id,
                    old.number,
                    old.rarity,
                    old.fingerprint,
                ]
            )
            have.add(card_id)
            carried.append(card_id)
    return carried
