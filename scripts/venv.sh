# Sourced by scripts/serve.sh, scripts/lock.sh and tests/run.sh: the project's own virtualenv.
# Makes ./.venv (or $DECKCHECK_VENV) with python3 unless it is there, so nothing is ever
# installed into the system's Python (Debian 12 and Ubuntu 24.04 refuse that: PEP 668).
# Afterwards $VENV is its absolute path, $VENV_PYTHON its interpreter, and its bin/ leads PATH.
VENV=${DECKCHECK_VENV:-.venv}
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "deckcheck needs Python 3.11 or newer as python3 (found: $(python3 -V 2>&1))" >&2
  exit 2
fi
if ! "$VENV/bin/python" -m pip --version >/dev/null 2>&1; then
  rm -rf "$VENV"
  if ! python3 -m venv "$VENV"; then
    rm -rf "$VENV"
    echo "could not create the virtualenv $VENV: on Debian/Ubuntu, sudo apt-get install python3-venv" >&2
    exit 2
  fi
fi
VENV=$(cd "$VENV" && pwd)
VENV_PYTHON="$VENV/bin/python"
# as `source .venv/bin/activate` would: the virtualenv's commands (hadolint, pre-commit...) come first
export VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH"

# install_into_venv EXTRA: the project (editable) with EXTRA, versions from requirements.lock;
# skipped when pyproject.toml, requirements.lock and EXTRA are as at the last install
install_into_venv() {
  local stamp="$VENV/.deckcheck-$1" want
  want=$(cat pyproject.toml requirements.lock | sha256sum | cut -d' ' -f1)
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    return 0
  fi
  "$VENV_PYTHON" -m pip install -q --disable-pip-version-check -c requirements.lock -e ".[$1]"
  echo "$want" >"$stamp"
}
