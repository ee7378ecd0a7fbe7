"""The JSON API under /api/v1 (stub: the HTTP issue fills it in)."""

from flask import Blueprint

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def init_app(app):
    app.register_blueprint(bp)
