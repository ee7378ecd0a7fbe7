#!/usr/bin/env bash
# The project's static gate, as .ci/run runs it: lint, format, types, import layers.
# Run it from the project's virtualenv (tests/run.sh installs the tools with the "test" extra).
set -euo pipefail
cd "$(dirname "$0")/.."
python -m ruff check .
python -m ruff format --check .
python -m mypy
lint-imports
