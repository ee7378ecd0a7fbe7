"""The floor of a whole ``deckcheck check one.txt`` process (``bench_floor.py``'s issue #30 row): a fresh
interpreter that reads the card database's pack, checks its SHA-256 once, reads a table of precomputed
line facts, and gives the list's verdict.

    python benchmarks/floor_process.py PACK TABLE DECK

``TABLE`` is JSON: each line text after the count -> [name key, legal, basic Energy, ACE SPEC, Radiant,
Basic Pokémon] as deckcheck resolved it (``bench_floor.floor_table``), made before the run like a perfect
precomputed index. The verdict is the six Standard checks of ``bench_floor.floor6`` (60 cards, at most 4
copies of a name other than basic Energy, at most one ACE SPEC, at most one Radiant, at least one Basic
Pokémon, every card legal); it prints ``valid`` or ``not valid`` and exits 0 or 1, as ``deckcheck check``.
Standard library only: nothing but what such a process must do.
"""

import hashlib
import json
import sys

#: the pack's prefix: magic (8 bytes), format and header length (u32 each), then the SHA-256 of the rest
_DIGEST_AT, _BODY_AT = 16, 48


def main(pack: str, table: str, deck: str) -> int:
    with open(pack, "rb") as f:
        data = f.read()
    if hashlib.sha256(memoryview(data)[_BODY_AT:]).digest() != data[_DIGEST_AT:_BODY_AT]:
        # the digest's cost is what is measured: a pack of another layout is still read and digested once
        print(f"{pack}: the SHA-256 at bytes 16-48 is not that of the rest (another pack layout?)", file=sys.stderr)
    with open(table, encoding="utf-8") as f:
        facts = json.load(f)
    with open(deck, encoding="utf-8") as f:
        text = f.read()
    counts: dict[str, int] = {}
    total = aces = radiant = basics = 0
    legal = True
    energy = set()
    get = facts.get
    for line in text.splitlines():
        head, _, rest = line.strip().removeprefix("* ").partition(" ")  # PTCGO's bullet
        if head.isdigit():
            found = get(rest)
            if found is not None:
                n = int(head)
                key = found[0]
                counts[key] = counts.get(key, 0) + n
                total += n
                legal = legal and found[1]
                if found[2]:
                    energy.add(key)
                aces += n if found[3] else 0
                radiant += n if found[4] else 0
                basics += n if found[5] else 0
    four = all(n <= 4 for key, n in counts.items() if key not in energy)
    valid = total == 60 and four and aces <= 1 and radiant <= 1 and basics >= 1 and legal
    print("valid" if valid else "not valid")
    return 0 if valid else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:4]))
