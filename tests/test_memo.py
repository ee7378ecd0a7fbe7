"""The one memo type (deckcheck/memo.py): its bounds and behaviour, tested here once for every memo."""

from __future__ import annotations

import gc

import pytest

from deckcheck.memo import MEMO_MAX_LEN, Memo, MemosOf, key_length, memoise


def test_a_memo_answers_what_was_put_and_none_for_the_rest():
    memo: Memo[str, int] = Memo(4)
    assert memo.put("a", 1) == 1
    assert memo.get("a") == 1 and memo["a"] == 1 and "a" in memo
    assert memo.get("b") is None and memo.get("b", 7) == 7 and "b" not in memo
    with pytest.raises(KeyError):
        memo["b"]
    assert list(memo) == ["a"] and len(memo) == 1
    memo["b"] = 2  # an assignment is a put
    assert memo.get("b") == 2 and len(memo) == 2


def test_a_full_memo_is_emptied_before_a_new_key_and_never_holds_more_than_its_size():
    memo: Memo[int, int] = Memo(3)
    for n in range(10):
        memo.put(n, n * n)
        assert 1 <= len(memo) <= 3
        assert memo.get(n) == n * n
    assert sorted(memo) == [9]  # 0 1 2 | 3 4 5 | 6 7 8 | 9
    memo.put(9, 0)  # a key it holds is replaced, nothing forgotten
    memo.put(10, 1)
    memo.put(10, 2)
    assert sorted(memo) == [9, 10] and memo.get(10) == 2


def test_keys_longer_than_the_bound_are_answered_but_not_kept():
    memo: Memo[object, str] = Memo(100, max_len=5)
    assert memo.put("12345", "kept") == "kept" and "12345" in memo
    assert memo.put("123456", "not") == "not" and "123456" not in memo
    assert memo.put(("ab", None, "123456"), "x") == "x" and len(memo) == 1  # a tuple: its longest text
    memo.put(("ab", None, "12345"), "y")
    memo.put((2**200, 3.5), "z")  # no text: nothing to measure
    assert len(memo) == 3
    unbounded: Memo[str, int] = Memo(1, max_len=None)
    unbounded.put("x" * 10_000, 1)
    assert len(unbounded) == 1


def test_the_default_key_bound_and_key_length():
    assert Memo(1).max_len == MEMO_MAX_LEN == 200
    assert key_length("abc") == 3 and key_length(("a", None, "abcd", 5)) == 4 and key_length(()) == 0
    assert key_length(12345) == 0


def test_a_memo_keeps_at_least_one_entry():
    with pytest.raises(ValueError, match="at least one"):
        Memo(0)


def test_clear_empties_the_memo_and_get_stays_the_same_dict():
    memo: Memo[str, int] = Memo(2)
    get = memo.get
    memo.put("a", 1)
    memo.clear()
    assert len(memo) == 0 and get("a") is None
    memo.put("a", 2)
    memo.put("b", 3)
    memo.put("c", 4)  # emptied in place: the bound get still reads it
    assert get("c") == 4 and get("a") is None


def test_a_memoised_function_is_called_once_per_kept_key_and_every_time_for_a_long_one():
    calls: list[str] = []

    @memoise(2, max_len=4)
    def shout(text: str) -> str | None:
        calls.append(text)
        return text.upper() if text != "none" else None

    assert shout("ab") == shout("ab") == "AB" and calls == ["ab"]
    assert shout("none") is None and shout("none") is None and calls == ["ab", "none"]  # None is an answer
    assert shout("abcde") == shout("abcde") == "ABCDE" and calls[-2:] == ["abcde", "abcde"]
    assert len(shout.memo) == 2 and shout.__wrapped__("xy") == "XY"
    shout("cd")  # full: emptied, then kept
    assert list(shout.memo) == ["cd"]
    shout.clear()
    assert len(shout.memo) == 0


def test_memos_of_an_object_are_its_own_and_go_with_it():
    class Value:
        pass

    held: MemosOf[Value, Memo[str, int]] = MemosOf(lambda: Memo(8))
    a, b = Value(), Value()
    held.of(a).put("x", 1)
    assert held.of(a).get("x") == 1 and held.of(a) is held.of(a)
    assert held.of(b).get("x") is None and len(held) == 2
    del a
    gc.collect()
    assert len(held) == 1
