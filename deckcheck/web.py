"""The paste-a-decklist web page (stub: the HTTP issue fills it in)."""

from flask import Blueprint

bp = Blueprint("web", __name__)
