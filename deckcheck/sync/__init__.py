"""The database-making edge: everything that makes, refreshes or ships the card database.

- :mod:`~deckcheck.sync.build`: the builder (``deckcheck db build``) from a merged catalogue,
  with the reviewed tables held against the source (:mod:`~deckcheck.sync.reviewed`), the name
  audit (:mod:`~deckcheck.sync.nameaudit`) and the reviewed reprint verdicts
  (:mod:`~deckcheck.sync.reprints`); the database file and its pack written by
  :mod:`~deckcheck.sync.write`;
- ``deckcheck db sync``: the TCGdex client, cache and download (:mod:`~deckcheck.sync.tcgdex`)
  and its payload schemas (:mod:`~deckcheck.sync.payloads`); the mapping of TCGdex records to
  the builder's input (:mod:`~deckcheck.sync.mapping`); the checks and report
  (:mod:`~deckcheck.sync.checks`) and the run that installs a new file
  (:mod:`~deckcheck.sync.install`); the optional cross-check against pokemontcg.io
  (:mod:`~deckcheck.sync.pokemontcg`);
- ``db publish`` and ``db pull`` (:mod:`~deckcheck.sync.publish`), for a fleet;
- the click commands of ``db sync``, ``db publish`` and ``db pull`` (:mod:`~deckcheck.cli.dbsync`).

It imports the core, never the reverse: the core reads the shipped file through
:mod:`deckcheck.cards.files`. This ``__init__`` imports nothing, so ``deckcheck db build`` does not
load requests or marshmallow.
"""
