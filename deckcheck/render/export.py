"""The deck as a clean Pokémon TCG Live export (``deckcheck fmt``, the page's export box): resolved names and
set codes, one line per printing, the section headers with their card counts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..names import ENERGY_TYPES, basic_energy_type, without_subtitle
from ..problems import Report

if TYPE_CHECKING:
    from ..cards import Card

_SYMBOL_OF = {v: k for k, v in ENERGY_TYPES.items()}
SECTIONS = (("Pokémon", "Pokémon"), ("Trainer", "Trainer"), ("Energy", "Energy"))


def export_name(card: Card) -> str:
    """The name as PTCGL writes it: ``Basic {R} Energy``; no trainer subtitle."""
    if card.is_basic_energy and (t := basic_energy_type(card.name)) is not None:
        return f"Basic {{{_SYMBOL_OF[t]}}} Energy"
    return without_subtitle(card.name)


def _export_groups(report: Report) -> dict[str, dict[tuple[str, str, str], list[int]]]:
    """Section label -> {(name, set code, number): [copies]}, in list order: what the export writes.

    A line that did not resolve is kept as written, in the section it came from; so is a line
    whose set code the database does not know (``unknown-set``: a newer set's printing is never
    rewritten as an older one).
    """
    groups: dict[str, dict[tuple[str, str, str], list[int]]] = {s: {} for s, _ in SECTIONS}
    as_written = {n for p in report.problems if p.rule == "unknown-set" for n in p.lines}
    for ln in report.lines:
        if ln.card is not None and ln.line in as_written:
            section = ln.card.supertype
            key = (ln.name, ln.set_code or "", ln.number or "")
        elif ln.card is not None:
            section = ln.card.supertype
            key = (export_name(ln.card), ln.card.set_code, ln.card.number)
        else:
            section = {"pokemon": "Pokémon", "trainer": "Trainer", "energy": "Energy"}.get(ln.section or "", "Trainer")
            key = (ln.name, ln.set_code or "", ln.number or "")
        entry = groups[section].setdefault(key, [0])
        entry[0] += ln.count
    return groups


def section_counts(report: Report) -> dict[str, int]:
    """Copies per export section (``Pokémon``, ``Trainer``, ``Energy``): the numbers in the export's
    headers. A card that did not resolve counts in the section its line came from (Trainer in a
    list without headers), as the export places it."""
    return {section: sum(count for (count,) in rows.values()) for section, rows in _export_groups(report).items()}


def ptcgl_export(report: Report) -> str:
    """The deck as a clean Pokémon TCG Live export.

    Resolved names and set codes, duplicate lines of one printing merged (lines kept as
    written: :func:`_export_groups`), section headers with the number of cards in the section
    (:func:`section_counts`), and ``Total Cards``. PTCGL itself writes the number of lines in a
    header and Limitless the number of cards; importers ignore the header counts, so the
    export states the same card counts as the page's counts table.
    """
    groups = _export_groups(report)
    out = []
    for section, label in SECTIONS:
        rows = groups[section]
        if not rows:
            continue
        out.append(f"{label}: {sum(count for (count,) in rows.values())}")
        for (name, code, number), (count,) in rows.items():
            out.append(" ".join(str(x) for x in (count, name, code, number) if x != ""))
        out.append("")
    out.append(f"Total Cards: {sum(ln.count for ln in report.lines)}")
    return "\n".join(out) + "\n"
