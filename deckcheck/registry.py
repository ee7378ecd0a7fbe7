"""The rule registry: every rule's name, code, severity and parameters, registered with the rule.

A rule is a function registered with :func:`rule` under its public name (the names and codes
are a contract: API clients filter on them); a problem some other part of a check reports (the
parser's input limit, the command line's unreadable file, the rotation forecast) is registered
with :func:`declare`. :data:`CATALOGUE` holds both, and is what the API schema, the SARIF
output and the README's table are checked against; :data:`REGISTRY` holds the rules a format
file may name. The built-in rules register when :mod:`deckcheck.rules` is imported (``import
deckcheck`` does).

This module imports nothing else of deckcheck's, so that :mod:`deckcheck.problems` (which fills
in a problem's code and default severity from the catalogue), :mod:`deckcheck.formats` (which
checks a format file's rules) and the rules themselves can all import it.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)

#: parameter kinds a rule may declare, with the phrase an error message uses
PARAM_KINDS = {
    "int": "a whole number >= 0",
    "names": "a list of strings",
    "groups": "a list of lists of at least 2 strings",
}


class FormatError(Exception):
    """A format definition is broken (raised when formats load)."""


class Finding:
    """What a rule yields: a problem without its rule name, code and default severity, which
    the engine stamps from the rule's registration (:class:`~deckcheck.problems.Problem`).

    ``severity`` is empty for the rule's own severity, or one of :data:`SEVERITIES`. (A plain
    class: made for every problem, it costs less than a named tuple or a frozen dataclass, and
    its class is made without generated code.)
    """

    __slots__ = ("message", "lines", "cards", "hint", "severity")

    message: str
    lines: tuple[int, ...]
    cards: tuple[str, ...]
    hint: str | None
    severity: str

    def __init__(
        self,
        message: str,
        lines: tuple[int, ...] = (),
        cards: tuple[str, ...] = (),
        hint: str | None = None,
        severity: str = "",
    ) -> None:
        self.message, self.lines, self.cards, self.hint, self.severity = message, lines, cards, hint, severity


#: a rule function: ``fn(deck, ctx, **params)`` yields :class:`Finding` values (``deck`` is an
#: ``engine.Deck``, ``ctx`` an ``engine.Context``; the engine passes the parameters by position), or
#: returns them in a tuple or list (a plain function that returns ``()`` costs less than a generator)
RuleFn = Callable[..., Iterable[Finding]]

#: what a rule needs of the deck (:func:`rule`'s ``needs``): the name of a ``Deck`` attribute, or a
#: function of the format that answers one (``format -> name``)
Needs = str | Callable[[Any], str]

#: the ``needs`` of a rule that runs on every deck: an attribute every object has, always true
ALWAYS = "__class__"


class RuleSpec:
    """A registered name: a rule, or a problem kind reported outside the rules (:func:`declare`).

    Read-only by convention: the registry hands out the one spec of each name, and nothing sets its
    fields after :func:`_add` (a plain class: a dataclass generates its code at every start).
    """

    __slots__ = ("name", "code", "severity", "title", "description", "module")

    name: str
    code: str
    severity: str
    title: str  # one line: SARIF's short description
    #: what a player reads about it on the rules page (``/rules``): when it applies and what to do;
    #: the title when empty
    description: str
    #: the module that registered it (where its code is): the rules page names it as its source
    module: str

    def __init__(
        self, name: str, code: str, severity: str, title: str, *, description: str = "", module: str = ""
    ) -> None:
        self.name, self.code, self.severity, self.title = name, code, severity, title
        self.description, self.module = description, module

    @property
    def about(self) -> str:
        """The description, or the title when the rule has none."""
        return self.description or self.title


class Rule(RuleSpec):
    """A rule a format can name: its function and its parameters (name -> kind, :data:`PARAM_KINDS`).

    ``fn`` is None for a rule whose problems the parser reports while it reads (:func:`parser_rule`).
    ``needs`` names the deck attribute (a list of lines, a mapping...) without which the rule has
    nothing to say: when it is empty the engine does not call the rule (:data:`ALWAYS`: always called).
    """

    __slots__ = ("fn", "params", "needs")

    fn: RuleFn | None
    params: Mapping[str, str]
    needs: Needs

    def __init__(
        self,
        name: str,
        code: str,
        severity: str,
        title: str,
        fn: RuleFn | None,
        params: Mapping[str, str],
        needs: Needs = ALWAYS,
        *,
        description: str = "",
        module: str = "",
    ) -> None:
        super().__init__(name, code, severity, title, description=description, module=module)
        self.fn, self.params, self.needs = fn, params, needs

    def needs_of(self, fmt: Any) -> str:
        """The deck attribute this rule needs in ``fmt`` (a ``formats.Format``)."""
        return self.needs if isinstance(self.needs, str) else self.needs(fmt)


#: every registered name -> its spec, rules and declared problem kinds alike. Codes are never reused.
CATALOGUE: dict[str, RuleSpec] = {}
#: the rules a format file may name, name -> rule
REGISTRY: dict[str, Rule] = {}


#: the package whose modules register deckcheck's own rules when imported
BUILTIN_RULES = "deckcheck.rules"


def load_builtin_rules() -> None:
    """Import deckcheck's own rules (they register themselves), once. Loading a format file needs them
    (its rule names are checked against :data:`REGISTRY`) whether or not the engine was imported first;
    by name, because the rules import the deck types, which import the formats, which call this."""
    import importlib

    importlib.import_module(BUILTIN_RULES)


def _add(spec: RuleSpec) -> None:
    if spec.name in CATALOGUE:  # pragma: no cover - a programming error
        raise TypeError(f"rule {spec.name}: registered twice")
    if spec.severity not in SEVERITIES:  # pragma: no cover - a programming error
        raise TypeError(f"rule {spec.name}: unknown severity {spec.severity!r}")
    taken = {s.code: s.name for s in CATALOGUE.values()}
    if spec.code in taken:  # pragma: no cover - a programming error
        raise TypeError(f"rule {spec.name}: code {spec.code} is {taken[spec.code]}'s")
    CATALOGUE[spec.name] = spec
    if isinstance(spec, Rule):
        REGISTRY[spec.name] = spec


def rule(
    name: str, *, code: str, severity: str, title: str, needs: Needs = ALWAYS, description: str = "", **params: str
) -> Callable[[RuleFn], RuleFn]:
    """Register a rule function under ``name`` with its code, default severity, one-line title and
    typed parameters (kinds from :data:`PARAM_KINDS`), declared in the order the function takes them
    after the deck and the context (the engine passes them by position).

    ``needs`` names the ``Deck`` attribute the rule looks at (or is a function of the format that
    names it): a rule that has nothing to say when that attribute is empty declares it, and the
    engine skips the call on a deck where it is (most rules have nothing to say on most decks).
    """

    def register(fn: RuleFn) -> RuleFn:
        unknown = set(params.values()) - set(PARAM_KINDS)
        if unknown:  # pragma: no cover - a programming error
            raise TypeError(f"rule {name}: unknown parameter kind {unknown}")
        taken = list(inspect.signature(fn).parameters)[2:]
        if taken != list(params):  # pragma: no cover - a programming error
            raise TypeError(
                f"rule {name}: the function takes {taken} after (deck, ctx), the rule declares {list(params)}"
            )
        if not (isinstance(needs, str) or callable(needs)):  # pragma: no cover - a programming error
            raise TypeError(f"rule {name}: needs must be a Deck attribute's name or a function of the format")
        _add(Rule(name, code, severity, title, fn, dict(params), needs, description=description, module=fn.__module__))
        return fn

    return register


def parser_rule(name: str, *, code: str, severity: str, title: str, description: str = "") -> Rule:
    """Register a rule whose problems the parser reports while it reads (``unparsed-line``...): it
    runs no function, but a format names it like any other rule and turns it off with
    ``name = false`` (the engine keeps the parser's problems of the rules the format runs)."""
    spec = Rule(name, code, severity, title, None, {}, description=description, module=_caller())
    _add(spec)
    return spec


def declare(name: str, *, code: str, severity: str, title: str, description: str = "") -> RuleSpec:
    """Register a problem kind that no format runs (the engine, the forecast or an edge reports it)."""
    spec = RuleSpec(name, code, severity, title, description=description, module=_caller())
    _add(spec)
    return spec


def _caller() -> str:
    """The module that called the registering function (two frames up)."""
    return str(sys._getframe(2).f_globals.get("__name__", ""))


def _param_ok(kind: str, value: object) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if kind == "names":
        return isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    return isinstance(value, list) and all(
        isinstance(g, list) and len(g) >= 2 and all(isinstance(v, str) and v for v in g) for g in value
    )


def check_rule_params(name: str, params: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate a format file's parameters for one rule (called when formats load)."""
    spec = REGISTRY.get(name)
    if spec is None:
        import difflib  # only a broken format file needs it

        close = difflib.get_close_matches(name, REGISTRY, n=1)
        guess = f"did you mean {close[0]!r}?" if close else f"known rules: {', '.join(sorted(REGISTRY))}"
        raise FormatError(f"{where}: unknown rule {name!r}; {guess}")
    kinds = spec.params
    extra = sorted(set(params) - set(kinds))
    if extra:
        raise FormatError(f"{where}: rule {name!r} takes no parameter {', '.join(extra)}")
    missing = sorted(set(kinds) - set(params))
    if missing:
        raise FormatError(f"{where}: rule {name!r} needs parameter {', '.join(missing)}")
    for key, kind in kinds.items():
        if not _param_ok(kind, params[key]):
            raise FormatError(
                f"{where}: rule {name!r} parameter {key} must be {PARAM_KINDS[kind]}, not {params[key]!r}"
            )
    return dict(params)
