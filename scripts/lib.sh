# Shared by the scripts in this folder (sourced, not run).
# shellcheck shell=bash
export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
WASM_OPT="$ROOT/node_modules/.bin/wasm-opt"
export WASM_OPT

step() { printf '==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
note() { printf '    %s\n' "$*"; }
warn() { printf '%s: WARNING: %s\n' "$(basename "$0")" "$*" >&2; }
die() {
  printf '%s: ERROR: %s\n' "$(basename "$0")" "$*" >&2
  exit 1
}
