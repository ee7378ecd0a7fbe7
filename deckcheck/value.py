"""Plain value classes: a ``__slots__`` class with its own ``__init__`` that compares, hashes and
shows itself by its fields, as a frozen dataclass does, without the code a dataclass generates at
import (what a fresh ``deckcheck check`` and a new worker pay first).

A value is immutable by convention: nothing assigns to one after its ``__init__`` (a guard on
``__setattr__`` would make every value cost several times its making, and cards are made on a
check's path). Its fields are its ``__match_args__``, in order; a slot not among them (a cache, as
:meth:`Card.to_dict <deckcheck.cards.printings.Card.to_dict>` keeps) is no part of its value.
"""

from __future__ import annotations

from operator import attrgetter
from typing import Any, ClassVar, Self


class Value:
    """The base of a plain value class: equal to a value of the same class with equal fields
    (``__match_args__``), hashed by them, shown as ``Name(field=value, ...)``."""

    __slots__ = ()
    __match_args__: ClassVar[tuple[str, ...]] = ()
    #: the fields' values as a tuple, made for each class from its ``__match_args__`` (an attrgetter of
    #: one name answers the value itself: that name twice, for a tuple)
    _fields_of: ClassVar[attrgetter[tuple[Any, ...]]] = attrgetter("__class__", "__class__")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names = cls.__match_args__ or ("__class__",)
        cls._fields_of = attrgetter(*names, *names) if len(names) == 1 else attrgetter(*names)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        fields = self._fields_of
        return fields(self) == fields(other)

    def __ne__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        fields = self._fields_of
        return fields(self) != fields(other)

    def __hash__(self) -> int:
        return hash(self._fields_of(self))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__match_args__)
        return f"{self.__class__.__qualname__}({shown})"

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` to some fields (as ``dataclasses.replace``): the class made again from
        every field, by name, so its ``__init__`` checks and defaults apply."""
        fields = {name: getattr(self, name) for name in self.__match_args__}
        unknown = changes.keys() - fields.keys()
        if unknown:
            raise TypeError(f"{self.__class__.__qualname__} has no field {sorted(unknown)[0]!r}")
        fields.update(changes)
        return self.__class__(**fields)
