#!/usr/bin/env bash
# Quick start, step 2: install everything the test suite needs, then run all of it.
# Python packages: the project with its "test" extra, into the project's virtualenv ./.venv
# (scripts/venv.sh; never the system's Python), at the versions pinned in requirements.lock.
# System packages (Debian): chromium for the browser tests, redis-server for the rate-limit
# storage tests, nginx for the reverse-proxy tests, wrk for the load benchmark and the drain
# test; installed with apt-get when missing and running as root, otherwise named.
# Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" </dev/null >/dev/null
  else
    echo "tests/run.sh: please install ${need[*]} (Debian: sudo apt-get install ${need[*]}); the tests need them." >&2
    exit 2
  fi
fi

. scripts/venv.sh
install_into_venv test
exec "$VENV_PYTHON" -m pytest "$@"
