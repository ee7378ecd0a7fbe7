"""Formats are data: one TOML file per format in ``data/formats/``.

A format names its rules with their parameters, its card pool, its ban list and
its exclusive groups, and may extend another. A broken format file is a
:class:`FormatError` at start-up (naming the file), never a wrong verdict later.
The mini-language is described in the README ("Format files").

The package's modules: :mod:`~deckcheck.formats.format` (the :class:`Format` value, its rule plan
and its public description), :mod:`~deckcheck.formats.legality` (which printings are legal on a
date), :mod:`~deckcheck.formats.memos` (the memos of a format's answers and of the engine's tables),
:mod:`~deckcheck.formats.pool` (a pool's values) and :mod:`~deckcheck.formats.loader` (the files
read and checked: :func:`load_formats`, :func:`default_formats`). Their public names are offered here.
"""

from __future__ import annotations

from ..registry import FormatError as FormatError
from .format import Format as Format
from .loader import default_formats as default_formats
from .loader import load_formats as load_formats
from .memos import FORMAT_MEMOS as FORMAT_MEMOS
from .memos import RulePlan as RulePlan
from .pool import Ban as Ban
from .pool import MarkDate as MarkDate
from .pool import Pool as Pool
from .pool import Rotation as Rotation
