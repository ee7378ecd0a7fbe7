#!/usr/bin/env bash
# Quick start, step 1: install deckcheck with its server extra into ./.venv (versions from
# requirements.lock) and serve the API and the web page on http://127.0.0.1:8000.
# Arguments go to `deckcheck serve` (--bind HOST:PORT, --workers N, --dry-run).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
install_into_venv server
exec "$VENV/bin/deckcheck" serve "$@"
