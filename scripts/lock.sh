#!/usr/bin/env bash
# Regenerate requirements.lock from pyproject.toml: every extra, resolved with pip-tools in .venv.
# Pins already in the lock that still fit pyproject.toml are kept; pass --upgrade (or
# --upgrade-package NAME) to move them. tests/test_packaging.py fails while the lock is stale.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/venv.sh
"$VENV_PYTHON" -m pip install -q --disable-pip-version-check "pip-tools>=7.4,<8"
CUSTOM_COMPILE_COMMAND="bash scripts/lock.sh" "$VENV_PYTHON" -m piptools compile --quiet \
  --all-extras --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links \
  --output-file requirements.lock pyproject.toml "$@"
# the test extra names deckcheck's own extras (deckcheck[server,redis]): pip-compile then pins this
# checkout by its path; the lock is for dependencies only
awk '/^deckcheck @ /{skip=1; next} skip && /^    #/{next} {skip=0; print}' requirements.lock >requirements.lock.tmp
mv requirements.lock.tmp requirements.lock
