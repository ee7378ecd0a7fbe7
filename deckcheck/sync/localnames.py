"""The localized names table (:mod:`deckcheck.cards.localnames`) and the sets' localized codes, made from
TCGdex's names of each printing (``names-i18n.json.gz``: see ``make_names_i18n.py`` beside the card
data; ``deckcheck db build --names-i18n FILE``).

The source holds, per English printing, its name in each language that differs from the English
one, and per set its printed codes (``{"official": "SVI", "fr": "E&V"}``). The table keeps each
distinct (language, name) once, pointing at the English names it is (not one entry per printing:
most printings of a card share their names), and the codes go on the set records
(``local_codes``), where a code an English set already has (``DEX`` is Dark Explorers in English,
Dragons Exalted in French) stays English.
"""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

from ..cards.index import fingerprint
from ..cards.localnames import LANGUAGES, NAMES_SCHEMA
from ..names import lookup_key
from .tables import BuildError

#: the columns of a card row (build.FIELDS) read here
_ID, _NAME, _SET = 0, 1, 7


def load(path: str | Path) -> dict[str, Any]:
    """The source file (gzip or plain JSON), checked for the parts read here."""
    path = Path(path)
    try:
        opener = gzip.open if path.suffix == ".gz" else open
        with opener(path, "rt", encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, EOFError, json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BuildError(f"cannot read localized names {path}: {exc}") from exc
    if not isinstance(raw, dict) or not isinstance(raw.get("cards"), dict) or not isinstance(raw.get("sets"), dict):
        raise BuildError(f"localized names {path}: not an object with 'cards' and 'sets' objects")
    return raw


def table(source: dict[str, Any], rows: list[list[Any]], release: dict[str, str] | None = None) -> dict[str, Any]:
    """The names table (the layout of :mod:`deckcheck.cards.localnames`) for the database's card rows: each
    distinct name in each language, with the English names of the printings that bear it. A name
    whose lookup key is the English name's (``Pokémon Catcher`` written otherwise) is left out: it
    is found as English already. Languages :data:`~deckcheck.cards.localnames.LANGUAGES` does not know
    are kept too (their code names them in messages). A name of several English names in one
    language (German ``EP-Teiler`` is Exp. Share and EXP. ALL) lists them newest printing first
    (``release``: set id -> release date), the one a name-only line is read as."""
    cards = source["cards"]
    release = release or {}
    found: dict[str, dict[str, dict[str, str]]] = {}
    for row in rows:
        names = cards.get(row[_ID])
        if not isinstance(names, dict):
            continue
        english = row[_NAME]
        key = lookup_key(english)
        for lang, written in names.items():
            if isinstance(written, str) and written.strip() and lookup_key(written) not in ("", key):
                targets = found.setdefault(lang, {}).setdefault(written.strip(), {})
                targets[english] = max(targets.get(english, ""), release.get(row[_SET], ""))
    english_names = sorted({e for by_name in found.values() for targets in by_name.values() for e in targets})
    at = {name: i for i, name in enumerate(english_names)}
    order = {lang: i for i, lang in enumerate(LANGUAGES)}
    meta = source.get("meta") or {}
    names = {
        lang: [[written, *(at[e] for e in _newest_first(targets))] for written, targets in sorted(found[lang].items())]
        for lang in sorted(found, key=lambda code: (order.get(code, len(order)), code))
    }
    return {
        "schema": NAMES_SCHEMA,
        "meta": {
            "source": meta.get("source"),
            "repository": meta.get("repository"),
            "commit": meta.get("commit"),
            "license": meta.get("license"),
        },
        "english": english_names,
        "names": names,
        # each entry's lookup key, made here once (a load with this names.py uses them)
        "keys": {
            "fingerprint": fingerprint(),
            **{lang: [lookup_key(e[0]) for e in rows] for lang, rows in names.items()},
        },
    }


def _newest_first(targets: dict[str, str]) -> list[str]:
    """English names -> their newest printing's release date, as the names newest first (then by name)."""
    return sorted(targets, key=lambda e: (targets[e], e), reverse=True)


def local_codes(source: dict[str, Any], sets: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Set id -> {language: printed code} for the codes the source records in a language that are no
    English set's code, alias or id (those stay English) and differ from the set's own."""
    taken: set[str] = set()
    for s in sets:
        taken.update(c.upper() for c in (s.get("ptcgl_code") or "", *(s.get("code_aliases") or []), s["id"]) if c)
    out: dict[str, dict[str, str]] = {}
    for s in sets:
        codes = (source["sets"].get(s["id"]) or {}).get("codes") or {}
        for lang, code in sorted(codes.items()):
            if lang == "official" or not isinstance(code, str):
                continue
            code = code.strip()
            if code and " " not in code and code.upper() not in taken:
                out.setdefault(s["id"], {})[lang] = code
    return out


def encode(names: dict[str, Any]) -> bytes:
    """The table as the file stores it (compact JSON, gzip without a time stamp: the same table
    gives the same bytes)."""
    payload = json.dumps(names, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", mtime=0, filename="") as gz:
        gz.write(payload)
    return out.getvalue()
