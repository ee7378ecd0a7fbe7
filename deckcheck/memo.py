"""The one memo type: bounded in entries and in the length of what it keeps.

Every memo in deckcheck is a :class:`Memo` (or a function wrapped by :func:`memoise`,
which holds one): a dict that keeps at most ``size`` entries, is emptied when a new key
would make one more (real lists repeat a few thousand short texts; a flood of unique ones
costs a refill, never memory) and does not keep a key whose text is longer than
``max_len`` characters (a long line is worked out each time it comes, and cannot pin
memory). A memo that belongs to something else (a card database, a format) is held beside
it by a cache object, never stored on a frozen value.

Reading is a plain dict look-up: :attr:`Memo.get` is the dict's own ``get``, so a hot loop
pays nothing for the bounds, which only :meth:`Memo.put` looks at.
"""

from __future__ import annotations

import functools
import threading
import weakref
from collections.abc import Callable, Hashable, Iterator
from typing import Any, Generic, Protocol, TypeVar, cast

#: the longest text (a line, a name, a set code, a number) a memo keeps by default: memos hold
#: the short texts real lists repeat, and a flood of long ones cannot fill memory
MEMO_MAX_LEN = 200

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
A = TypeVar("A", bound=Hashable)
R = TypeVar("R")
T = TypeVar("T")


def key_length(key: object) -> int:
    """How long a key's text is: a string's length, the longest string of a tuple, else 0."""
    if isinstance(key, str):
        return len(key)
    if isinstance(key, tuple):
        return max((len(part) for part in key if isinstance(part, str)), default=0)
    return 0


class Memo(Generic[K, V]):
    """A dict of at most ``size`` entries, emptied when full, that never keeps a key whose text
    is longer than ``max_len`` (:func:`key_length`; None: no bound on the key, only for a memo
    of a handful of entries).

    ``memo.get(key)`` answers the value or None (the dict's ``get``: a memo of values that may
    be None is read with ``get(key, default)``); ``memo.put(key, value)`` keeps it, if it may,
    and answers ``value``.
    """

    __slots__ = ("_data", "size", "max_len", "get", "entries")

    #: the dict's own ``get``, bound: ``get(key)`` or ``get(key, default)``
    get: Callable[..., V | None]
    #: the dict itself, for a hot loop that keeps an entry with :meth:`put`'s bounds written out (a
    #: call costs more than the look-ups: ``engine.lines._read_text``); anything else calls :meth:`put`
    entries: dict[K, V]

    def __init__(self, size: int, max_len: int | None = MEMO_MAX_LEN) -> None:
        if size < 1:
            raise ValueError(f"a memo keeps at least one entry, not {size}")
        self._data: dict[K, V] = {}
        self.size = size
        self.max_len = max_len
        self.get = self._data.get
        self.entries = self._data

    def put(self, key: K, value: V) -> V:
        """Keep ``value`` under ``key`` unless the key is too long (emptying the memo first when
        it is full); answer ``value``."""
        limit = self.max_len
        # a text key (most memos') measured without key_length's call
        if limit is not None and (len(key) if isinstance(key, str) else key_length(key)) > limit:
            return value
        data = self._data
        if len(data) >= self.size and key not in data:
            data.clear()
        data[key] = value
        return value

    def __setitem__(self, key: K, value: V) -> None:
        """:meth:`put` as an assignment (``memo[key] = value``): kept only if it may be."""
        self.put(key, value)

    def clear(self) -> None:
        """Forget every entry."""
        self._data.clear()

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __repr__(self) -> str:
        return f"Memo({len(self._data)}/{self.size}, max_len={self.max_len})"


class Memoised(Protocol[A, R]):
    """A function of one argument with a :class:`Memo` of its answers (made by :func:`memoise`)."""

    #: the function itself (a call of it skips the memo)
    fn: Callable[[A], R]
    #: its answers
    memo: Memo[A, R]

    def __call__(self, arg: A, /) -> R: ...

    def clear(self) -> None:
        """Forget every answer."""


_MISSING: object = object()


def memoise(size: int, max_len: int | None = MEMO_MAX_LEN) -> Callable[[Callable[[A], R]], Memoised[A, R]]:
    """A decorator: the function's answers kept in a :class:`Memo` of ``size`` entries (its one
    argument is the key; an argument longer than ``max_len`` is answered without the memo).

    The wrapper is a plain function (a look in the memo, the call on a miss: about as fast as
    ``functools.lru_cache``); its ``memo``, ``fn`` and ``clear`` are :class:`Memoised`'s.
    """

    def wrap(fn: Callable[[A], R]) -> Memoised[A, R]:
        memo: Memo[A, R] = Memo(size, max_len)
        get, put, missing = memo.get, memo.put, _MISSING

        def call(arg: A) -> R:
            hit = get(arg, missing)
            return put(arg, fn(arg)) if hit is missing else hit  # type: ignore[return-value]

        wrapper: Any = functools.wraps(fn)(call)
        wrapper.fn, wrapper.memo, wrapper.clear = fn, memo, memo.clear
        return cast(Memoised[A, R], wrapper)

    return wrap


class MemosOf(Generic[T, V]):
    """A cache object: for each live object (by identity), a value made by ``factory`` on first
    use (the memos of a frozen value, kept beside it). The entry goes when the object does."""

    __slots__ = ("_by_id", "_factory", "_lock")

    def __init__(self, factory: Callable[[], V]) -> None:
        self._by_id: dict[int, V] = {}
        self._factory = factory
        self._lock = threading.Lock()

    def of(self, obj: T) -> V:
        """The value held for ``obj`` (made now if there is none)."""
        hit = self._by_id.get(id(obj))
        if hit is None:
            with self._lock:
                hit = self._by_id.get(id(obj))
                if hit is None:
                    hit = self._by_id[id(obj)] = self._factory()
                    # dropped as the object is freed, before its id can be another object's
                    weakref.finalize(obj, self._by_id.pop, id(obj), None)
        return hit

    def values(self) -> list[V]:
        """The values held now, for the objects alive."""
        return list(self._by_id.values())

    def __len__(self) -> int:
        return len(self._by_id)
