"""deckcheck/patterns.py: a pattern is compiled at its first use, once, and answers as the compiled one."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from unittest import mock

from deckcheck.patterns import NARROW_MAX, Pattern, one_of_then


def test_a_pattern_is_compiled_at_its_first_use_and_only_then():
    with mock.patch("deckcheck.patterns.re.compile", wraps=re.compile) as compiling:
        pattern = Pattern(r"([0-9]+)-(?P<b>[a-z]+)", re.I)
        assert compiling.call_count == 0
        assert pattern.fullmatch("12-AB").groups() == ("12", "AB")
        assert compiling.call_count == 1
        for _ in range(3):
            assert pattern.match("1-a x") and pattern.search("x 1-a") and not pattern.fullmatch("1-")
        assert [m.group(1) for m in pattern.finditer("1-a 22-b")] == ["1", "22"]
        assert pattern.split("x1-a y") == ["x", "1", "a", " y"]
        assert pattern.sub("#", "1-a 2-b") == "# #"
        assert pattern.compiled() is pattern.compiled() and pattern.compiled().flags & re.I
        assert compiling.call_count == 1


def test_each_method_answers_as_the_compiled_patterns_before_and_after_the_first_use():
    source = r"\r\n|\r|\n"
    text = "a\r\nb\rc\nd"
    expected = re.compile(source)
    for first in ("split", "finditer", "sub", "search", "match", "fullmatch"):
        pattern = Pattern(source)
        assert pattern.split(text) == expected.split(text), first
        assert [m.span() for m in pattern.finditer(text)] == [m.span() for m in expected.finditer(text)]
        assert pattern.sub(" ", text) == expected.sub(" ", text)
        assert pattern.search(text).span() == expected.search(text).span()
        assert pattern.match(text) is None and pattern.fullmatch("\r\n") is not None


# -- every pattern of deckcheck compiles without a table of the whole Basic Multilingual Plane ------------

_NESTED = {"SUBPATTERN": -1, "ATOMIC_GROUP": None, "ASSERT": 1, "ASSERT_NOT": 1}
_REPEATS = ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT")


def _sets(tree) -> Iterator[list]:
    """Every character set of a parsed pattern (``re._parser``'s tree), however deep."""
    from re import _constants as c

    for op, av in tree:
        name = str(op)
        if op is c.IN:
            yield av
        elif name in _NESTED:
            yield from _sets(av if _NESTED[name] is None else av[_NESTED[name]])
        elif name in _REPEATS:
            yield from _sets(av[2])
        elif op is c.BRANCH:
            for branch in av[1]:
                yield from _sets(branch)
        elif op is c.GROUPREF_EXISTS:
            for branch in av[1:]:
                if branch is not None:
                    yield from _sets(branch)


def _wide(items: list) -> bool:
    """Does the set hold a code point past NARROW_MAX in more than two runs (what compiles into a table)?"""
    from re import _constants as c

    points: set[int] = set()
    for op, av in items:
        if op is c.LITERAL:
            points.add(av)
        elif op is c.RANGE:
            points.update(range(av[0], av[1] + 1))
    if max(points, default=0) <= NARROW_MAX:
        return False
    ordered = sorted(points)
    return 1 + sum(b != a + 1 for a, b in zip(ordered, ordered[1:], strict=False)) > 2


def _all_patterns() -> list[Pattern]:
    """Every :class:`Pattern` a module of deckcheck holds, at its top level or in a tuple, list or dict
    there (found through the modules, not the collector, whose frozen objects it does not list)."""
    import deckcheck

    found: dict[int, Pattern] = {}
    for info in pkgutil.walk_packages(deckcheck.__path__, "deckcheck."):
        if info.name.endswith("__main__"):
            continue
        for value in vars(importlib.import_module(info.name)).values():
            inner = value.values() if isinstance(value, dict) else value if isinstance(value, (tuple, list)) else ()
            for item in (value, *inner):
                if isinstance(item, Pattern):
                    found[id(item)] = item
    return list(found.values())


def test_no_pattern_holds_a_set_that_compiles_into_a_table_of_every_code_point():
    """A set with a character past U+00FF in more than two runs (``[*>•-]``) compiles into a 64K table,
    ~0.1 ms at its first use: such characters are branches of their own (``one_of_then``)."""
    from re import _parser

    patterns = _all_patterns()
    assert len(patterns) > 40  # every module's patterns were found
    assert [p.source for p in patterns if any(map(_wide, _sets(_parser.parse(p.source, p.flags))))] == []
    # the screen is live: the sets it exists for are seen, in a group, a repeat and a look-ahead
    for source in ("(?:[*>•-] )?x", "a(?=[◇☆♀♂])", "(?:◇|☆|♀)+", "[-–—]x|[×]y"):
        found = [_wide(s) for s in _sets(_parser.parse(source))]
        assert any(found) is (source != "[-–—]x|[×]y"), source  # two runs: literals and a range


def test_one_of_then_matches_each_character_then_the_rest():
    fragment = one_of_then({"*", "-", "•", ">"}, " ")
    assert fragment == "(?:[\\*\\->] |• )"
    for text, expected in (("• ", True), ("- ", True), ("> ", True), ("•", False), ("+ ", False), ("]", False)):
        assert bool(re.fullmatch(fragment, text)) is expected, text
    assert one_of_then({"♀", "♂"}, "x") == "(?:♀x|♂x)"
