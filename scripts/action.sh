#!/usr/bin/env bash
# The shell logic of the deckcheck GitHub Action (action.yml), kept here so it can be tested
# with a fake GITHUB_* environment (tests/cli/test_action.py) and read as a script.
#
#   action.sh key       print the cache key of the isolated environment (step output `key`)
#   action.sh install   create $DECKCHECK_VENV with the CLI only, from the lock/constraints file
#   action.sh check     run `deckcheck check --output-format github` on INPUT_PATHS; write the outputs
#
# Inputs arrive as environment variables (INPUT_*), never pasted into the script. The caller's
# Python is never touched: deckcheck lives in its own virtual environment ($DECKCHECK_VENV,
# default $RUNNER_TEMP/deckcheck-venv), made with the interpreter setup-python installed
# (DECKCHECK_PYTHON) and restored from the cache when the key matches.
set -euo pipefail

action_path="${GITHUB_ACTION_PATH:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
venv="${DECKCHECK_VENV:-${RUNNER_TEMP:-/tmp}/deckcheck-venv}"

# the pinned dependency set the CLI is installed from: the first of these that exists
constraints_file() {
  local name
  for name in requirements.lock constraints.txt; do
    if [ -f "$action_path/$name" ]; then
      printf '%s\n' "$action_path/$name"
      return 0
    fi
  done
  return 1
}

output() {  # output NAME VALUE: a step output (one line; our values never hold a newline)
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  fi
}

cmd_key() {
  local python="${DECKCHECK_PYTHON:-python3}" version digest
  version="$("$python" -c 'import platform, sys; print(sys.version.split()[0] + "-" + platform.machine())')"
  # the interpreter, the package and its pins: any change makes a new environment
  digest="$(cat "$action_path/pyproject.toml" "$(constraints_file || echo /dev/null)" | sha256sum | cut -c1-16)"
  output key "deckcheck-venv-${RUNNER_OS:-$(uname -s)}-py${version}-${digest}"
  printf 'deckcheck-venv-%s-py%s-%s\n' "${RUNNER_OS:-$(uname -s)}" "$version" "$digest"
}

cmd_install() {
  local python="${DECKCHECK_PYTHON:-python3}" constraints
  if [ -x "$venv/bin/deckcheck" ] && "$venv/bin/deckcheck" --version >/dev/null 2>&1; then
    echo "deckcheck: using the cached environment in $venv"
    return 0
  fi
  rm -rf "$venv"
  "$python" -m venv "$venv"
  if constraints="$(constraints_file)"; then
    echo "deckcheck: installing the CLI with the pins in ${constraints#"$action_path"/}"
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet -c "$constraints" "$action_path"
  else
    echo "deckcheck: no lock or constraints file; installing with the ranges in pyproject.toml"
    "$venv/bin/python" -m pip install --disable-pip-version-check --quiet "$action_path"
  fi
  "$venv/bin/deckcheck" --version
}

# The deck files this pull request (or push) changed, as absolute paths, one a line, into $1.
# Fails (status 1) when there is no base to compare with: the caller then checks everything.
changed_files() {
  local list="$1" base="" top
  case "${GITHUB_EVENT_NAME:-}" in
    pull_request | pull_request_target | push) ;;
    *) return 1 ;;
  esac
  [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ] || return 1
  base="$("$venv/bin/python" - "$GITHUB_EVENT_PATH" <<'EOF'
import json, sys
event = json.load(open(sys.argv[1], encoding="utf-8"))
sha = (event.get("pull_request") or {}).get("base", {}).get("sha") or event.get("before") or ""
print("" if set(sha) <= {"0"} else sha)
EOF
)"
  [ -n "$base" ] || return 1
  if ! git cat-file -e "$base^{commit}" 2>/dev/null; then
    # a shallow checkout (actions/checkout's default depth 1) lacks the base: fetch just that commit
    git fetch --quiet --no-tags --depth=1 origin "$base" >/dev/null 2>&1 || return 1
  fi
  top="$(git rev-parse --show-toplevel)" || return 1
  # core.quotePath=false: a non-ASCII name comes out as itself, not quoted as "d\303\251ck.txt"
  git -c core.quotePath=false diff --name-only --no-renames --diff-filter=d "$base" HEAD -- | while IFS= read -r path; do
    printf '%s/%s\n' "$top" "$path"
  done >"$list"
}

cmd_check() {
  local args=(check --output-format github) report ext list paths=() line
  if [ -n "${INPUT_FORMAT:-}" ]; then args+=(--format "$INPUT_FORMAT"); fi
  if [ -n "${INPUT_AS_OF:-}" ]; then args+=(--as-of "$INPUT_AS_OF"); fi
  if [ -n "${INPUT_FAIL_ON:-}" ]; then args+=(--fail-on "$INPUT_FAIL_ON"); fi

  # the report file in the `output` format, and optionally a SARIF file for upload-sarif
  case "${INPUT_OUTPUT:-json}" in
    json | jsonl | sarif | junit | text) ;;
    *) echo "::error title=deckcheck::output must be json, jsonl, sarif, junit or text, not '${INPUT_OUTPUT}'"
       return 2 ;;
  esac
  ext="${INPUT_OUTPUT:-json}"; [ "$ext" = junit ] && ext=xml; [ "$ext" = text ] && ext=txt
  report="${INPUT_REPORT_PATH:-${RUNNER_TEMP:-/tmp}/deckcheck-report.$ext}"
  args+=(--report "${INPUT_OUTPUT:-json}=$report")
  if [ -n "${INPUT_SARIF:-}" ]; then args+=(--report "sarif=$INPUT_SARIF"); fi
  output report-path "$report"

  if [ "${INPUT_CHANGED_ONLY:-false}" = true ]; then
    list="${RUNNER_TEMP:-/tmp}/deckcheck-changed.txt"
    if changed_files "$list"; then
      echo "deckcheck: checking only the $(wc -l <"$list" | tr -d ' ') changed files among the paths"
      args+=(--changed-files "$list")
    else
      echo "::notice title=deckcheck::changed-only: no base commit to compare with (event '${GITHUB_EVENT_NAME:-}'); checking every deck"
    fi
  fi

  # one path a line (spaces are part of a path); blank lines and surrounding blanks ignored
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    if [ -n "$line" ]; then paths+=("$line"); fi
  done <<<"${INPUT_PATHS:-decks}"
  if [ "${#paths[@]}" -eq 0 ]; then paths=(decks); fi

  "$venv/bin/deckcheck" "${args[@]}" -- "${paths[@]}"
}

case "${1:-}" in
  key) cmd_key ;;
  install) cmd_install ;;
  check) cmd_check ;;
  *) echo "usage: $0 key|install|check" >&2; exit 2 ;;
esac
