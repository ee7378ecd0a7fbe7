"""The card database's pack's columns (:mod:`deckcheck.cards.pack`) as a load reads them: arrays of unsigned
integers (the narrowest kind for a range, their bytes, and the checks a load runs on them at C speed: a
pack of ~4 MB is read at every start, no int made per value), and text columns read in place
(:class:`Texts`, :class:`Fixed`)."""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from itertools import accumulate

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
    """Is every value of an unsigned array below ``top``? Byte plane by byte plane at C speed, no int
    made per value: a value is ``top`` or more when, from its most significant byte down, its bytes
    equal ``top``'s until one is greater (or all are equal). Each plane's bytes become a mask (a byte of
    1 where the value's byte is greater than, or equal to, ``top``'s byte there, by ``bytes.translate``)
    read as one int, so the values still equal to ``top`` so far are one ``&`` of those masks."""
    size = values.itemsize
    if top <= 0:
        return not values
    if top >= 1 << (8 * size):
        return True
    raw = values.tobytes()
    if size == 1:
        return not raw.translate(None, bytes(range(top)))
    if sys.byteorder == "big":  # pragma: no cover - planes read least significant byte first
        swapped = array(values.typecode, values)
        swapped.byteswap()
        raw = swapped.tobytes()
    tops = top.to_bytes(size, "little")
    equal = -1  # every value equals top in the planes looked at so far (all bits set)
    for plane in range(size - 1, -1, -1):
        bytes_, cut = raw[plane::size], tops[plane]
        above = int.from_bytes(bytes_.translate(bytes(cut + 1) + b"\1" * (255 - cut)), "little")
        if equal & above:
            return False
        equal &= int.from_bytes(bytes_.translate(bytes(cut) + b"\1" + bytes(255 - cut)), "little")
        if not equal:
            return True
    return False  # a value equal to top in every byte


class Texts(Sequence[str]):
    """A text column as one string and each value's offsets: reading a value makes a new string
    (a forked worker writes to no shared object when it reads one)."""

    __slots__ = ("_offsets", "_text")

    def __init__(self, text: str, offsets: array[int]) -> None:
        self._text, self._offsets = text, offsets

    @classmethod
    def of(cls, values: list[str]) -> Texts:
        return cls("".join(values), array("I", list(accumulate(map(len, values), initial=0))))

    def __getitem__(self, i: int) -> str:  # type: ignore[override]  # one value, no slices
        return self._text[self._offsets[i] : self._offsets[i + 1]]

    def __len__(self) -> int:
        return len(self._offsets) - 1


class Fixed(Sequence[str]):
    """A text column of values of one length, one after the other in one string."""

    __slots__ = ("_count", "_text", "_width")

    def __init__(self, text: str, width: int, count: int) -> None:
        self._text, self._width, self._count = text, width, count

    def __getitem__(self, i: int) -> str:  # type: ignore[override]  # one value, no slices
        if not 0 <= i < self._count:
            raise IndexError(i)
        return self._text[i * self._width : (i + 1) * self._width]

    def __len__(self) -> int:
        return self._count
