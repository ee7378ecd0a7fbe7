"""What ``deckcheck db sync`` checks before it installs a database, and what it reports.

:func:`self_checks` must hold for any database installed (``--force`` does not skip them);
:func:`safety_checks` make a sync suspicious (``--force`` installs it anyway); :func:`compare`
and :func:`summary_lines` say what changes.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import Counter
from dataclasses import dataclass, field

from ..cards import CardDB

log = logging.getLogger(__name__)

#: the largest share of the cards a sync may lose without ``--force``
MAX_SHRINK = 0.05


def self_checks(new: CardDB, raw: dict, previous: CardDB | None) -> list[str]:
    """What must hold for any database we install (``--force`` does not skip these)."""
    out = []
    if not new.cards:
        out.append("it has no cards")
    if len(new.cards) != len(raw["cards"]):
        out.append(f"it has {len(raw['cards']) - len(new.cards)} duplicate card id(s)")
    if previous:
        for energy in ("Grass", "Fire", "Water", "Lightning", "Psychic", "Fighting", "Darkness", "Metal"):
            if previous.basic_energy(energy) and not new.basic_energy(energy):
                out.append(f"it has no basic {energy} Energy")
    return out


def safety_checks(new: CardDB, previous: CardDB | None) -> list[str]:
    """What makes a sync suspicious (``--force`` installs it anyway)."""
    if previous is None:
        return []
    out = []
    old_n, new_n = len(previous.cards), len(new.cards)
    if new_n < old_n * (1 - MAX_SHRINK):
        out.append(
            f"it has {new_n} cards, {old_n - new_n} fewer than the current {old_n} "
            f"({(old_n - new_n) / old_n:.0%}; at most {MAX_SHRINK:.0%} may go)"
        )
    lost = sorted(set(previous.sets) - set(new.sets))
    had = Counter(c.set_id for c in previous.cards.values())
    has = Counter(c.set_id for c in new.cards.values())
    emptied = sorted(sid for sid in set(previous.sets) & set(new.sets) if had[sid] and not has[sid])
    if lost:
        out.append(f"it loses {len(lost)} set(s): {', '.join(lost[:20])}")
    if emptied:
        out.append(f"it has no cards in {len(emptied)} set(s) that had some: {', '.join(emptied[:20])}")
    return out


@dataclass
class Summary:
    sets_added: list[str] = field(default_factory=list)
    sets_removed: list[str] = field(default_factory=list)
    cards_added: list[str] = field(default_factory=list)
    cards_removed: list[str] = field(default_factory=list)
    marks_changed: list[tuple[str, str, str | None, str | None]] = field(default_factory=list)
    legality_changed: list[tuple[str, str, bool, bool]] = field(default_factory=list)
    on: dt.date = field(default_factory=dt.date.today)


def compare(previous: CardDB | None, new: CardDB, on: dt.date | None = None) -> Summary:
    """Sets and cards added/removed, regulation marks changed, and Standard legality on ``on``
    (today) for the cards whose mark or fingerprint changed."""
    on = on or dt.date.today()
    out = Summary(on=on)
    old_sets = previous.sets if previous else {}
    old_cards = previous.cards if previous else {}
    out.sets_added = sorted(set(new.sets) - set(old_sets))
    out.sets_removed = sorted(set(old_sets) - set(new.sets))
    out.cards_added = sorted(set(new.cards) - set(old_cards))
    out.cards_removed = sorted(set(old_cards) - set(new.cards))
    if previous is None:
        return out
    changed = []
    for cid, card in new.cards.items():
        old = old_cards.get(cid)
        if old is None:
            continue
        if old.mark != card.mark:
            out.marks_changed.append((cid, card.name, old.mark, card.mark))
        if old.mark != card.mark or old.fingerprint != card.fingerprint:
            changed.append((old, card))
    try:
        from ..formats import default_formats

        standard = default_formats()["standard"]
    except Exception as exc:  # noqa: BLE001 - the summary must not break a sync
        log.warning("Standard legality not compared: %s", exc)
        return out

    def legal(card, db) -> bool:
        via, ban = standard.legality(card, db, on)
        return via is not None and ban is None

    for old, card in changed:
        before, after = legal(old, previous), legal(card, new)
        if before != after:
            out.legality_changed.append((card.id, card.name, before, after))
    return out


def listing(items: list[str], limit: int = 12) -> str:
    more = f" … and {len(items) - limit} more" if len(items) > limit else ""
    return ", ".join(items[:limit]) + more


def summary_lines(s: Summary, previous: CardDB | None, new: CardDB) -> list[str]:
    lines = []
    if previous is not None:
        lines.append(
            f"Cards: {len(new.cards)} (was {len(previous.cards)}): {len(s.cards_added)} added, "
            f"{len(s.cards_removed)} removed. Sets: {len(new.sets)} (was {len(previous.sets)})."
        )
    else:
        lines.append(f"Cards: {len(new.cards)} in {len(new.sets)} sets (no current database to compare with).")
    if s.sets_added:
        per_set = Counter(c.set_id for c in new.cards.values())
        lines.append(
            f"Sets added ({len(s.sets_added)}): "
            + listing(
                [
                    f"{sid} {new.sets[sid].name} ({new.sets[sid].code or '-'}, {per_set[sid]} cards)"
                    for sid in s.sets_added
                ]
            )
        )
    if s.sets_removed:
        lines.append(f"Sets removed ({len(s.sets_removed)}): {listing(s.sets_removed)}")
    if previous is not None and s.cards_added:
        lines.append(f"Cards added ({len(s.cards_added)}): {listing(s.cards_added)}")
    if s.cards_removed:
        lines.append(f"Cards removed ({len(s.cards_removed)}): {listing(s.cards_removed)}")
    if s.marks_changed:
        lines.append(f"Regulation marks changed ({len(s.marks_changed)}):")
        lines += [
            f"  {cid} {name}: {old or '-'} -> {new_mark or '-'}" for cid, name, old, new_mark in s.marks_changed[:50]
        ]
    if s.legality_changed:
        word = {True: "legal", False: "not legal"}
        lines.append(f"Standard legality changed on {s.on.isoformat()} ({len(s.legality_changed)}):")
        lines += [f"  {cid} {name}: {word[a]} -> {word[b]}" for cid, name, a, b in s.legality_changed[:50]]
    return lines
