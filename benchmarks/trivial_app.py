"""The baseline for ``wrk_validate.py``: a trivial Flask JSON endpoint, nothing of deckcheck.

It reads the same JSON body the validate benchmark posts and answers a small
JSON object, so the two runs differ only by the work deckcheck does.

    gunicorn --config python:deckcheck.service.gunicorn_conf 'benchmarks.trivial_app:app'
"""

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/api/v1/validate")
def validate():
    """Parse the JSON body and answer at once."""
    body = request.get_json()
    return jsonify({"valid": True, "chars": len(body["decklist"])})
