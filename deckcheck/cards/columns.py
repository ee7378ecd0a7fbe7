"""Arrays of unsigned integers as the card database's pack stores them (:mod:`deckcheck.cards.pack`):
the narrowest kind for a range, their bytes, and the checks a load runs on them at C speed (a pack
of ~4 MB is read at every start: no int made per value)."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence

#: the kinds of a section of numbers
NUMBERS = ("u8", "u16", "u32")
#: each kind's ``array`` type code
ITEM = {"u8": "B", "u16": "H", "u32": "I"}
if array("H").itemsize != 2 or array("I").itemsize != 4:  # pragma: no cover - every platform CPython runs on
    raise ImportError("deckcheck.cards.columns needs 2-byte 'H' and 4-byte 'I' arrays")


class PackError(ValueError):
    """A packed database is damaged, of another format or inconsistent."""


def kind_for(top: int) -> str:
    """The narrowest array kind that holds the integers 0 to ``top``."""
    return "u8" if top < 1 << 8 else "u16" if top < 1 << 16 else "u32"


def int_bytes(values: Sequence[int], kind: str) -> bytes:
    out = array(ITEM[kind], values)
    if sys.byteorder == "big":  # pragma: no cover - the file is little-endian
        out.byteswap()
    return out.tobytes()


def zeros(values: array[int]) -> int:
    """How many values of an unsigned array are 0 (one or two bytes per value: at C speed)."""
    if values.typecode == "B":
        return values.tobytes().count(0)
    if values.typecode != "H":
        return values.count(0)
    raw, zero = values.tobytes(), bytes([1] + [0] * 255)
    both = int.from_bytes(raw[0::2].translate(zero), "little") & int.from_bytes(raw[1::2].translate(zero), "little")
    return both.bit_count()


def all_below(values: array[int], top: int) -> bool:
    """Is every value of an unsigned array below ``top``? Byte by byte at C speed: one byte per value,
    a translate; two bytes, translates of the high and the low bytes (``max`` would make an int of
    every value)."""
    if values.typecode == "B":
        return not values.tobytes().translate(None, bytes(range(min(top, 256))))
    if values.typecode != "H" or top >= 1 << 16:
        return not values or max(values) < top
    raw = values.tobytes()
    high, low = (raw[1::2], raw[0::2]) if sys.byteorder == "little" else (raw[0::2], raw[1::2])
    cut, floor = top >> 8, top & 0xFF
    if high.translate(None, bytes(range(cut + 1))):  # a high byte over top's
        return False
    # a value whose high byte is top's and whose low byte is top's or more: a bit set in both masks
    at_cut = high.translate(bytes(int(b == cut) for b in range(256)))
    over = low.translate(bytes(int(b >= floor) for b in range(256)))
    return not int.from_bytes(at_cut, "little") & int.from_bytes(over, "little")
