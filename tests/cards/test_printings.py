"""The card table (deckcheck.cards.printings.CardTable): each card made once, from its row, on first use."""

from __future__ import annotations

import threading

from deckcheck.cards.printings import CardTable


def test_a_card_asked_for_by_two_threads_at_once_is_one_object():
    """Two threads meeting a card's row first at the same time get the same object (the engine, the
    index of usual lines and the legality tables tell a printing legal as itself from a reprint by
    identity: a second object of the card read 'legal as' itself)."""
    both_in = threading.Barrier(2, timeout=0.5)
    made: list[object] = []

    def make(row: int) -> object:
        made.append(row)
        try:
            both_in.wait()  # the first maker waits here for the other thread to start making too
        except threading.BrokenBarrierError:
            pass  # the other thread waited for this one to finish instead
        return object()

    table = CardTable({"sv01-181": 0}, make)  # type: ignore[arg-type]
    got: list[object] = []
    threads = [threading.Thread(target=lambda: got.append(table.at(0))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(got) == 2 and got[0] is got[1] is table.at(0)
    assert made == [0]
