"""The Flask application factory."""

from __future__ import annotations

from flask import Flask

from . import cards


def create_app(config: dict | None = None) -> Flask:
    """Build the app: defaults, then ``DECKCHECK_*`` environment, then ``config``.

    The card database is loaded here, once per process (before gunicorn forks).
    """
    app = Flask(__name__)
    app.config.from_mapping(
        CARD_DB_PATH=None,  # None: the embedded database (data/cards.json.gz)
        DEFAULT_FORMAT="standard",
        MAX_DECKLIST_BYTES=64 * 1024,
        MAX_DECKLIST_LINES=1000,
    )
    app.config.from_prefixed_env("DECKCHECK")
    if config:
        app.config.update(config)
    if app.config["CARD_DB_PATH"]:
        cards.set_db(cards.load(app.config["CARD_DB_PATH"]))
    else:
        cards.get_db()

    from . import api, web

    api.init_app(app)
    app.register_blueprint(web.bp)
    return app
