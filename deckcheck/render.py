"""Render reports and decks as text: a clean PTCGL export here; CI output formats beside it."""

from __future__ import annotations

import re

from .names import ENERGY_TYPES, basic_energy_type

_SUBTITLE = re.compile(r"\s*\([^()]*\)\s*$")
_SYMBOL_OF = {v: k for k, v in ENERGY_TYPES.items()}
SECTIONS = (("Pokémon", "Pokémon"), ("Trainer", "Trainer"), ("Energy", "Energy"))


def export_name(card) -> str:
    """The name as PTCGL writes it: ``Basic {R} Energy``; no trainer subtitle."""
    if card.is_basic_energy:
        t = basic_energy_type(card.name)
        return f"Basic {{{_SYMBOL_OF[t]}}} Energy"
    return _SUBTITLE.sub("", card.name)


def ptcgl_export(report) -> str:
    """The deck as a clean Pokémon TCG Live export.

    Resolved names and set codes, duplicate lines of one printing merged,
    section headers with line counts (as PTCGL writes them) and ``Total Cards``.
    Lines that did not resolve are kept as written, in the section they came from.
    """
    groups: dict[str, dict[tuple, list]] = {s: {} for s, _ in SECTIONS}
    for ln in report.lines:
        if ln.card is not None:
            section = ln.card.supertype
            key = (export_name(ln.card), ln.card.set_code, ln.card.number)
        else:
            section = {"pokemon": "Pokémon", "trainer": "Trainer", "energy": "Energy"}.get(ln.section or "", "Trainer")
            key = (ln.name, ln.set_code or "", ln.number or "")
        entry = groups[section].setdefault(key, [0])
        entry[0] += ln.count
    out = []
    for section, label in SECTIONS:
        rows = groups[section]
        if not rows:
            continue
        out.append(f"{label}: {len(rows)}")
        for (name, code, number), (count,) in rows.items():
            out.append(" ".join(str(x) for x in (count, name, code, number) if x != ""))
        out.append("")
    out.append(f"Total Cards: {sum(ln.count for ln in report.lines)}")
    return "\n".join(out) + "\n"
