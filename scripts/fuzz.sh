#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS] [TARGET...]: builds the cargo-fuzz targets of fuzz/ and runs each,
# one at a time, until 1,000,000 executions or SECONDS (default 600) per target, then prints a
# table: target, executions, executions per second, new crash/timeout/OOM files.
#
# Seeds come at run time from tests/fixtures/<format>/, tests/fixtures/invalid/<format>/ and
# $PROFTAB_SHARED/corpus(-new)/<format>/ (default /work/shared), copied into fuzz/seeds/<target>/
# (ignored, never committed), beside the committed minimised corpus fuzz/corpus/<target>/. New
# inputs the fuzzer finds go to fuzz/work/<target>/ (ignored); crashers to fuzz/artifacts/.
# `scripts/fuzz.sh --cmin [TARGET...]` instead minimises what the runs found (libFuzzer's merge,
# as `cargo fuzz cmin`) into fuzz/corpus/<target>/, keeping only inputs not taken from the
# shared corpus (scripts/fuzz-corpus-keep.mjs), at most 128 KiB and 200 files a target.
# Runs under `nice -n 15` (the machine is shared). Environment: FUZZ_RUNS (default 1000000),
# FUZZ_MAX_LEN (bytes, default 16384), FUZZ_NICE (default 15), FUZZ_TIMEOUT (seconds an input
# may take before it counts as a hang, default 1; libFuzzer measures wall-clock time, so on a
# loaded machine raise it and rerun each timeout artifact alone under /usr/bin/time).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"
FUZZ="$ROOT/fuzz"
SHARED=${PROFTAB_SHARED:-/work/shared}
SECONDS_PER_TARGET=${1:-600}
shift || true
RUNS=${FUZZ_RUNS:-1000000}
# 16 KiB: every format but OTLP has real files below it (fixtures of callgrind, perf.data, jfr,
# pprof of 0.2 to 1 KB), and larger inputs cost executions per second without reaching new
# reader code (at 64 KiB callgrind managed 126 a second); larger seeds are cut to it. OTLP gets
# 64 KiB (its smallest real file is 25 KB); read_any and round_trip, which detect the format and
# (round_trip) run all nine writers per input, 8 KiB.
MAX_LEN=${FUZZ_MAX_LEN:-16384}
NICE=${FUZZ_NICE:-15}
TIMEOUT=${FUZZ_TIMEOUT:-1}
BIN="$FUZZ/target/x86_64-unknown-linux-gnu/release"

# max_len_of TARGET: the input size limit of a target (see MAX_LEN).
max_len_of() {
  case $1 in
  otlp) echo 65536 ;;
  read_any | round_trip) echo 8192 ;;
  *) echo "$MAX_LEN" ;;
  esac
}

# rss_limit_of TARGET: libFuzzer's -rss_limit_mb for a target. round_trip gets 2 GiB: it runs
# every writer and reads each output back, and a fifth-pass run (before the target bounded the
# Rprof writer's one-line-per-tick output to 4 MiB) climbed to 1,002 MB; every other target 1 GiB.
rss_limit_of() {
  case $1 in
  round_trip) echo 2048 ;;
  *) echo 1024 ;;
  esac
}

# seed_dirs TARGET: the fixture and corpus folders (format names) a target's seeds come from.
seed_dirs() {
  case $1 in
  read_any | round_trip) (cd "$ROOT/tests/fixtures" && ls -d -- */ | tr -d /) ;;
  gzip | bz2) ;; # seeded by file ending in seed_files
  trace_event) echo trace_event trace-event ;;
  otlp) echo otlp ;;
  pprof_twice) echo pprof ;;
  *) echo "${1//_/-}" ;;
  esac
}

# seed_files TARGET: the seed files of a target, one a line.
seed_files() {
  local dirs=() d
  case $1 in
  gzip) find "$ROOT/tests/fixtures" "$SHARED/corpus" "$SHARED/corpus-new" -type f -name '*.gz' ;;
  bz2) find "$ROOT/tests/fixtures" "$SHARED/corpus" "$SHARED/corpus-new" -type f -name '*.bz2' ;;
  *)
    for d in $(seed_dirs "$1"); do
      dirs+=("$ROOT/tests/fixtures/$d" "$ROOT/tests/fixtures/invalid/$d")
      dirs+=("$SHARED/corpus/$d" "$SHARED/corpus-new/$d")
    done
    for d in "${dirs[@]}"; do [ -d "$d" ] && find "$d" -type f; done
    ;;
  esac
  return 0
}

# dict_of TARGET: the libFuzzer dictionary of a target (fuzz/<target>.dict, else fuzz/json.dict
# for the JSON formats), or nothing.
dict_of() {
  if [ -f "$FUZZ/$1.dict" ]; then
    echo "$FUZZ/$1.dict"
    return
  fi
  case $1 in
  cpuprofile | speedscope | firefox | heapprofile | trace_event | dhat | stackprof | safari | \
    tables_json) echo "$FUZZ/json.dict" ;;
  esac
}

# build: the targets, with debug assertions (overflow checks) and without a sanitizer (the
# crate has no `unsafe`; panics, timeouts and OOMs are what the runs look for; zlib-rs, the
# gzip inflater, has: docs/fuzzing.md records its targets' runs under -s address).
build() {
  command -v cargo-fuzz >/dev/null || {
    step "cargo-fuzz is missing: cargo install cargo-fuzz (once, a few minutes)"
    cargo install cargo-fuzz --locked || die "could not install cargo-fuzz"
  }
  rustup toolchain list | grep -q '^nightly' ||
    die "libFuzzer needs a nightly toolchain: rustup toolchain install nightly"
  step "building the fuzz targets (cargo +nightly fuzz build -s none -a)"
  (cd "$FUZZ" && nice -n "$NICE" cargo +nightly fuzz build -s none -a)
}

# run_target TARGET: seeds, runs, and appends the target's row to $TABLE.
run_target() {
  local t=$1 seeds="$FUZZ/seeds/$1" work="$FUZZ/work/$1" corpus="$FUZZ/corpus/$1"
  local log="$FUZZ/logs/$1.log" artifacts="$FUZZ/artifacts/$1/" dict before after
  rm -rf "$seeds" && mkdir -p "$seeds" "$work" "$corpus" "$artifacts" "$FUZZ/logs"
  seed_files "$t" | while read -r f; do cp -- "$f" "$seeds/$(echo "$f" | md5sum | cut -c1-16)"; done
  dict=$(dict_of "$t")
  before=$(find "$artifacts" -type f | wc -l)
  step "$t: $(find "$seeds" -type f | wc -l) seeds${dict:+, dictionary $(basename "$dict")}"
  local args=(-runs="$RUNS" -max_total_time="$SECONDS_PER_TARGET" -max_len="$(max_len_of "$t")"
    -timeout="$TIMEOUT" -rss_limit_mb="$(rss_limit_of "$t")" -artifact_prefix="$artifacts"
    -print_final_stats=1)
  [ -n "$dict" ] && args+=(-dict="$dict")
  nice -n "$NICE" "$BIN/$t" "${args[@]}" "$work" "$corpus" "$seeds" >"$log" 2>&1 || true
  after=$(find "$artifacts" -type f | wc -l)
  local execs speed
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  # A run that stops on a finding may print no final stats: its last status line counts.
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  printf '%-18s %10s %8s %4s\n' "$t" "${execs:-?}" "${speed:-?}" "$((after - before))" >>"$TABLE"
  # Every run, for the record (docs/fuzzing.md): time, target, executions, per second, new
  # findings, load average.
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%H:%MZ)" "$t" "${execs:-?}" "${speed:-?}" \
    "$((after - before))" "$(cut -d' ' -f1 /proc/loadavg)" >>"$FUZZ/logs/runs.tsv"
  [ "$after" = "$before" ] || warn "$t: new findings in fuzz/artifacts/$t/ (log: fuzz/logs/$t.log)"
}

# cmin_target TARGET: fuzz/corpus/TARGET/ becomes the minimised union of itself, the run's finds
# and the seeds, less what came from the shared corpus.
cmin_target() {
  local t=$1 merged shared=()
  merged=$(mktemp -d)
  mkdir -p "$FUZZ/corpus/$t" "$FUZZ/work/$t" "$FUZZ/seeds/$t" "$FUZZ/logs"
  step "$t: minimising"
  nice -n "$NICE" "$BIN/$t" -merge=1 -max_len="$(max_len_of "$t")" -timeout=10 -rss_limit_mb="$(rss_limit_of "$t")" \
    "$merged" "$FUZZ/corpus/$t" "$FUZZ/work/$t" "$FUZZ/seeds/$t" >"$FUZZ/logs/$t.cmin.log" 2>&1 ||
    warn "$t: the merge failed (log: fuzz/logs/$t.cmin.log)"
  mapfile -t shared < <(seed_files "$t" | grep "^$SHARED/" || true)
  rm -rf "$FUZZ/corpus/$t"
  note "$(node "$ROOT/scripts/fuzz-corpus-keep.mjs" "$merged" "$FUZZ/corpus/$t" 131072 "${shared[@]}")"
  rm -rf "$merged"
}

CMIN=0
if [ "$SECONDS_PER_TARGET" = --cmin ]; then CMIN=1; fi
build
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || mapfile -t TARGETS < <(cd "$FUZZ" && cargo +nightly fuzz list)
if [ "$CMIN" = 1 ]; then
  for t in "${TARGETS[@]}"; do cmin_target "$t"; done
  exit 0
fi
TABLE=$(mktemp)
trap 'rm -f "$TABLE"' EXIT
for t in "${TARGETS[@]}"; do run_target "$t"; done
step "done ($(date -u +%FT%H:%MZ), load $(cut -d' ' -f1-3 /proc/loadavg))"
printf '%-18s %10s %8s %4s\n' target execs execs/s new
cat "$TABLE"
