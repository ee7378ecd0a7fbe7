"""``deckcheck db sync --source pokemontcg``: cross-check against pokemontcg.io v2 (retiring
2027-03-01), the optional second source. It only reads: nothing is written.

pokemontcg.io's set ids differ from TCGdex's, so sets are matched by name and then by PTCGL code
(``ptcgoCode``); cards by collector number. pokemontcg.io's own ``legalities.standard`` is known
to be stale (PROVENANCE.md), so a legality divergence is a hint for a human, not a verdict.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..cards import Card, CardDB
from ..cards.index import number_key
from .build import normalise_text
from .fetch import SYNC_DEADLINE
from .mapping import normalise_mark
from .tcgdex import SyncError, TcgdexClient, run_pool

if TYPE_CHECKING:
    from ..formats import Format

DEFAULT_PTCGIO_URL = "https://api.pokemontcg.io/v2"

#: (pokemontcg.io set id, our set id)
SetPair = tuple[str, str]


def crosscheck_pokemontcg(
    api_url: str,
    db: CardDB,
    *,
    api_key: str | None = None,
    workers: int = 4,
    timeout: float = 30.0,
    connect_timeout: float = 5.0,
    retries: int = 5,
    backoff: float = 0.5,
    deadline: float = SYNC_DEADLINE,
    allow_hosts: tuple[str, ...] = (),
    today: dt.date | None = None,
    echo: Callable[[str], None] = lambda line: None,
) -> list[str]:
    """Regulation marks and Standard legality of the cards both sources have; returns the divergences.

    :raises SyncError: when pokemontcg.io answers without its ``data`` arrays.
    :raises FetchError: when it cannot be reached.
    """
    from ..formats import default_formats

    on = today or dt.date.today()
    standard = default_formats()["standard"]
    client = TcgdexClient(
        api_url,
        timeout=(connect_timeout, timeout),
        retries=retries,
        backoff=backoff,
        workers=workers,
        headers={"X-Api-Key": api_key} if api_key else None,
        deadline=deadline,
        allow_hosts=allow_hosts,
    )
    try:
        pairs = _pair_sets(client, db)
        results = run_pool(pairs, functools.partial(_set_cards, client), workers, "Sets ", True)
    finally:
        client.close()
    numbers = {(c.set_id, number_key(c.number)): c for c in db.cards.values()}
    divergences: list[str] = []
    compared = 0
    for (_pid, ours), ptcg_cards in zip(pairs, results, strict=True):
        for pc in ptcg_cards:
            card = numbers.get((ours, number_key(str(pc.get("number") or ""))))
            if card is None:
                continue
            compared += 1
            divergences += _divergences(card, pc, db, standard, on)
    echo(f"Compared {compared} cards in {len(pairs)} sets with {api_url}: {len(divergences)} divergence(s).")
    for line in divergences[:200]:
        echo(f"  {line}")
    return divergences


def _pair_sets(client: TcgdexClient, db: CardDB) -> list[SetPair]:
    """pokemontcg.io's sets matched to ours: by name, else by a PTCGL code only one of ours has."""
    by_code: dict[str, list[str]] = defaultdict(list)
    by_name: dict[str, str] = {}
    for s in db.sets.values():
        for code in {s.code or "", *s.aliases} - {""}:
            by_code[code.upper()].append(s.id)
        by_name.setdefault(normalise_text(s.name), s.id)
    payload = client.get_json("/sets", params={"pageSize": 250})
    ptcg_sets = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(ptcg_sets, list):
        raise SyncError(f"the set list at {client.url('/sets')} has no 'data' array")
    pairs = []
    for ps in ptcg_sets:
        if not isinstance(ps, dict) or not ps.get("id"):
            continue
        ours = by_name.get(normalise_text(ps.get("name") or ""))
        if ours is None:
            cands = by_code.get((ps.get("ptcgoCode") or "").upper(), [])
            ours = cands[0] if len(cands) == 1 else None
        if ours:
            pairs.append((ps["id"], ours))
    return pairs


def _set_cards(client: TcgdexClient, pair: SetPair) -> list:
    """Every card of one pokemontcg.io set, page by page."""
    pid, _ours = pair
    out: list = []
    page = 1
    while True:
        body = client.get_json("/cards", params={"q": f"set.id:{pid}", "page": page, "pageSize": 250})
        data = body.get("data") if isinstance(body, dict) else None
        if not isinstance(data, list):
            raise SyncError(f"pokemontcg.io cards of {pid}: no 'data' array")
        out += data
        if not data or len(out) >= int(body.get("totalCount") or 0):
            return out
        page += 1


def _divergences(card: Card, pc: dict, db: CardDB, standard: Format, on: dt.date) -> list[str]:
    """Where pokemontcg.io's record ``pc`` of ``card`` disagrees on its mark or Standard legality."""
    out = []
    their_mark = normalise_mark(pc.get("regulationMark"))
    if their_mark and card.mark and their_mark != card.mark:
        out.append(
            f"{card.id} {card.name}: regulation mark {card.mark} here, {their_mark} at pokemontcg.io ({pc.get('id')})"
        )
    theirs = ((pc.get("legalities") or {}).get("standard") or "").lower() == "legal"
    via, ban = standard.legality(card, db, on)
    mine = via is not None and ban is None
    if theirs != mine:
        out.append(
            f"{card.id} {card.name}: Standard {'legal' if mine else 'not legal'} here on "
            f"{on.isoformat()}, {'legal' if theirs else 'not legal'} at pokemontcg.io "
            f"({pc.get('id')})"
        )
    return out
