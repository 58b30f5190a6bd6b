#!/usr/bin/env bash
# `npm test`: everything, from setup to the browser tests. Setup and build must succeed; the
# checks after them all run even when one fails, and the summary lists each with its time.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

SUMMARY=()
FAILED=()

# run NAME COMMAND...: runs one step, records its time and outcome.
run() {
  local name=$1 started=$SECONDS status=0
  shift
  step "$name"
  "$@" || status=$?
  if [ "$status" = 0 ]; then
    SUMMARY+=("ok    $(printf '%5d' $((SECONDS - started))) s  $name")
  else
    SUMMARY+=("FAIL  $(printf '%5d' $((SECONDS - started))) s  $name (exit $status)")
    FAILED+=("$name")
  fi
}

print_summary() {
  step "summary (total $((SECONDS - TOTAL_START)) s)"
  printf '  %s\n' "${SUMMARY[@]}"
}

# No incremental compilation data: a run builds each crate once, and the data would add
# gigabytes to target/ (CI's disk ran out). A caller's own setting wins.
export CARGO_INCREMENTAL=${CARGO_INCREMENTAL:-0}

TOTAL_START=$SECONDS
run "setup" bash scripts/setup.sh
run "build" bash scripts/build.sh
if [ ${#FAILED[@]} -gt 0 ]; then
  print_summary
  die "setup or build failed; no tests were run"
fi
run "cargo fmt --check" cargo fmt --all -- --check
run "biome ci (JavaScript format + lint)" npx --no-install biome ci www js tests/js tests/browser scripts bench
run "cargo clippy (native)" cargo clippy --all-targets --locked -- -D warnings
run "cargo clippy (wasm32)" cargo clippy --all-targets --locked --target wasm32-unknown-unknown -- -D warnings
run "cargo test (native)" cargo test --locked
run "cargo test (wasm32 in Node)" cargo test --locked --target wasm32-unknown-unknown --test 'wasm*'
run "node --test tests/js/" node --test tests/js/
run "node --test tests/browser/" node --test tests/browser/
print_summary
if [ ${#FAILED[@]} -gt 0 ]; then
  die "failed: ${FAILED[*]}"
fi
echo "npm test: all steps passed"
