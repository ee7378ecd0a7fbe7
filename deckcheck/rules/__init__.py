"""Deck rules: each is a small function that yields what it finds.

A rule is registered with :func:`~deckcheck.registry.rule` under its public name, with its code,
default severity and parameters (the names and codes are a contract: API clients filter on
them). It receives the resolved deck and the check context, plus the parameters the format file
gives it, and yields :class:`~deckcheck.registry.Finding` values; the engine stamps each with the
rule's name, code and severity into a :class:`~deckcheck.problems.Problem`. The engine runs
every rule of a format and collects everything; no rule stops another.

The rules live in modules by theme; importing this package registers all of them:

- :mod:`.reading`: the parser's problems, unknown cards and sets, lines matched by name, totals
- :mod:`.construction`: deck size, copies, Basic Pokémon, one-per-deck kinds, printed limits
- :mod:`.legality`: the pool on the date, bans, reprints
- :mod:`.evolution`: missing pre-evolutions
- :mod:`.glc`: Gym Leader Challenge
- :mod:`.language`: card names read in another language
- :mod:`.notes`: problems no format runs (the engine's, the forecast's, the input's)
"""

from ..registry import CATALOGUE as CATALOGUE
from ..registry import PARAM_KINDS as PARAM_KINDS
from ..registry import REGISTRY as REGISTRY
from ..registry import Finding as Finding
from ..registry import Rule as Rule
from ..registry import RuleSpec as RuleSpec
from ..registry import check_rule_params as check_rule_params
from ..registry import declare as declare
from ..registry import parser_rule as parser_rule
from ..registry import rule as rule

# importing the modules registers their rules
from . import construction as construction
from . import evolution as evolution
from . import glc as glc
from . import language as language
from . import legality as legality
from . import notes as notes
from . import reading as reading
from .construction import PLAYED_AS_POKEMON as PLAYED_AS_POKEMON
from .notes import stale_database as stale_database
from .reading import has_unknown_set as has_unknown_set
from .words import UPDATE_ADVICE as UPDATE_ADVICE
from .words import display_name as display_name
from .words import label as label
from .words import newest_set_phrase as newest_set_phrase
