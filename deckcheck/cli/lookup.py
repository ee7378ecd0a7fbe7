"""``deckcheck cards``: look cards up by name or printing, with their legality in every format."""

from __future__ import annotations

import datetime as dt
import json
import re

import click

from .. import cards as _cards
from ..cards import CardDB
from ..formats import Format
from .common import _database, _date_option, _formats

# "SVI 181" or "Nest Ball SVI 181" in `deckcheck cards`
_PRINTING = re.compile(
    r"(?:(?P<name>.+?)\s+)?(?P<set>[A-Za-z][A-Za-z0-9-]{1,7})\s+"
    r"(?P<number>[A-Za-z]{0,5}\d{1,4}[A-Za-z]?)"
)


def _legality(fmt: Format, card: _cards.Card, db: CardDB, on: dt.date) -> dict:
    if on < fmt.pool.earliest:
        return {"legal": None, "banned": False, "legal_via": None}
    via, ban = fmt.legality(card, db, on)
    return {
        "legal": via is not None and ban is None,
        "banned": ban is not None,
        "legal_via": f"{via.set_code} {via.number}" if via is not None and via is not card else None,
    }


def _legality_word(entry: dict) -> str:
    if entry["banned"]:
        return "banned"
    if entry["legal"] is None:
        return "unknown"
    if not entry["legal"]:
        return "not legal"
    return f"legal (as {entry['legal_via']})" if entry["legal_via"] else "legal"


def _lookup(db: CardDB, query: str, limit: int) -> list[_cards.Card]:
    """``SVI 181`` (or ``Nest Ball SVI 181``) is one printing; anything else searches names."""
    m = _PRINTING.fullmatch(query)
    hit = db.find(m["set"], m["number"]) if m else None
    return [hit] if hit else db.search(query, limit=limit)


@click.command("cards")
@click.argument("query", nargs=-1, required=True)
@click.option("--as-of", metavar="YYYY-MM-DD", callback=_date_option, help="Legality on this date (default: today).")
@click.option("-n", "--limit", type=click.IntRange(1, 200), default=10, show_default=True, help="Most cards to list.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON: each card with its legality per format.")
@click.pass_context
def cards_cmd(ctx: click.Context, query: tuple[str, ...], as_of, limit: int, as_json: bool) -> None:
    """Look cards up by name or by set code and number (SVI 181).

    Shows each printing's set, number, regulation mark and type, and whether
    it is legal in every format on the date. Exits 1 when nothing matches.
    """
    db, formats = _database(), _formats()
    text, on = " ".join(query).strip(), as_of or dt.date.today()
    found = _lookup(db, text, limit)
    if not found:
        click.echo(f"No card matches {text!r}.", err=True)
        ctx.exit(1)
    rows = [(card, {fid: _legality(f, card, db, on) for fid, f in formats.items()}) for card in found]
    if as_json:
        docs = [{**card.to_dict(), "legality": legality} for card, legality in rows]
        click.echo(json.dumps({"as_of": on.isoformat(), "cards": docs}, ensure_ascii=False, indent=2))
        return
    click.echo(f"Legality on {on.isoformat()}:")
    for card, legality in rows:
        kind = " ".join((card.supertype, *[s for s in card.subtypes if s != card.supertype]))
        click.echo(f"{card.label}  {kind}  mark {card.mark or '-'}")
        click.echo("    " + "  ".join(f"{fid}: {_legality_word(e)}" for fid, e in legality.items()))
