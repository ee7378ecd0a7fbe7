"""The gunicorn master's warm-up (``gunicorn_conf.when_ready``): the validate endpoint run a few times before
the workers fork, so that they share what a first request makes (:func:`warm_up`)."""

from __future__ import annotations

from .. import engine
from ..cards import get_db
from ..formats import default_formats
from . import observe, ratelimit
from .api import EXAMPLE_DECK
from .paths import API_PREFIX

#: what the master checks before it forks (:func:`warm_up`): the API's own example deck in each format (today,
#: the default date) with a name the database does not know (the suggestions), then with each option
WARM_UP_UNKNOWN_LINE = "1 Pikachu Exx SSP 999\n"


def warm_up(app) -> int:
    """Run the validate endpoint of a deckcheck ``app`` a few times in the master, before the workers fork.

    What a first request does once per process (Python's specialisation of the code it runs, the
    format's tables for today, imports and tables made on first use) is then done once, in pages the
    workers share, instead of in every worker (measured with ``benchmarks/worker_memory.py``). Nothing
    is counted: the request and check metrics and the rate limiter are off while it runs, and only the
    API's example deck is checked. Returns the number of requests made (0: not a deckcheck app).
    """
    metrics = getattr(app, "extensions", {}).get(observe.EXTENSION)
    if metrics is None:
        return 0
    hooks = app.after_request_funcs.get(None, [])
    counting = [(i, hook) for i, hook in enumerate(hooks) if hook == metrics.count]
    listening = [i for i, hook in enumerate(engine.REPORT_LISTENERS) if hook is observe._observe_report]
    limiter = ratelimit.limiter_for(app)
    for i, _hook in reversed(counting):
        del hooks[i]
    for i in reversed(listening):
        del engine.REPORT_LISTENERS[i]
    if limiter is not None:
        limiter.enabled = False
    made = 0
    try:
        # the index of usual lines, every set code's (a worker would make the codes it meets, privately)
        get_db().index_usual_lines()
        # the card names in other languages (read on first use): shared, and a broken file fails here
        get_db().local_names()
        client = app.test_client()
        for fmt in default_formats():
            body = {"decklist": EXAMPLE_DECK + WARM_UP_UNKNOWN_LINE, "format": fmt}
            made += client.post(API_PREFIX + "/validate", json=body).status_code == 200
        # the options: a text/plain body, the rotation forecast, the chat reply
        made += client.post(API_PREFIX + "/validate", data=EXAMPLE_DECK, content_type="text/plain").status_code == 200
        made += (
            client.post(API_PREFIX + "/validate", json={"decklist": EXAMPLE_DECK, "forecast": True}).status_code == 200
        )
        made += client.post(API_PREFIX + "/validate?style=chat", json={"decklist": EXAMPLE_DECK}).status_code == 200
    finally:
        if limiter is not None:
            limiter.enabled = True
        for i in listening:
            engine.REPORT_LISTENERS.insert(i, observe._observe_report)
        for i, hook in counting:
            hooks.insert(i, hook)
    return made
