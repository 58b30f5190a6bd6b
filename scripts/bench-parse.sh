#!/usr/bin/env bash
# Parse speed and peak memory on big files: proftab native (CLI, release), proftab wasm in Node
# (the npm package) and `go tool pprof -top` (pprof files only). `npm run bench:parse`.
#
#   scripts/bench-parse.sh [REPS]          (REPS default 3; BENCH_WASM_RUNS parses per Node process, default 3)
#
# Inputs, generated once into target/bench-data/ (git-ignored; delete a file to regenerate):
#   synth-500k.pb.gz   500,000 samples, ≥ 25 MB uncompressed: ../shared/bench/gen/gen_profile.py
#                      (seed 1; $PROFTAB_SHARED overrides ../shared)
#   synth-500k.pb      the same, gunzipped
#   synth-500k.Rprof   `proftab convert synth-500k.pb.gz --to rprof` (skipped if refused)
#   rprof-60M.out      ≥ 50 MB Rprof: the generator of benches/rprof_parse.rs
#                      (`cargo run --release --example gen_bench_rprof`)
#   rprof-60M.pb.gz    `proftab convert rprof-60M.out --to pprof`, for go tool pprof
# Expects target/release/proftab and pkg/node (scripts/build.sh); needs /usr/bin/time (Debian
# `time`, installed by scripts/setup.sh) and, for the reference column, go.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

REPS=${1:-3}
DATA=${BENCH_DATA:-$ROOT/target/bench-data}
SHARED=${PROFTAB_SHARED:-$ROOT/../shared}
GEN_PPROF=$SHARED/bench/gen/gen_profile.py
CLI=$ROOT/target/release/proftab

[ -x /usr/bin/time ] || die "/usr/bin/time is missing: run scripts/setup.sh (Debian package 'time')"
[ -f pkg/node/proftab.js ] || die "pkg/node is missing: run scripts/build.sh"
step "cargo build --release --bin proftab --example gen_bench_rprof"
cargo build --release --locked --bin proftab --example gen_bench_rprof || die "release build failed"
mkdir -p "$DATA"

make_pprof() {
  [ -s "$DATA/synth-500k.pb.gz" ] && return 0
  [ -f "$GEN_PPROF" ] || die "$GEN_PPROF not found (set PROFTAB_SHARED to the shared folder)"
  step "generating synth-500k.pb.gz (gen_profile.py --lines 500000, seed 1)"
  python3 "$GEN_PPROF" --lines 500000 --seed 1 --format pprof --out "$DATA/synth-500k.pb.gz.tmp"
  mv "$DATA/synth-500k.pb.gz.tmp" "$DATA/synth-500k.pb.gz"
}

make_inputs() {
  make_pprof
  [ -s "$DATA/synth-500k.pb" ] || gzip -dc "$DATA/synth-500k.pb.gz" >"$DATA/synth-500k.pb"
  if [ ! -s "$DATA/rprof-60M.out" ]; then
    step "generating rprof-60M.out"
    target/release/examples/gen_bench_rprof "$DATA/rprof-60M.out" 60
  fi
  if [ ! -s "$DATA/rprof-60M.pb.gz" ]; then
    step "proftab convert rprof-60M.out --to pprof"
    "$CLI" convert "$DATA/rprof-60M.out" --to pprof -o "$DATA/rprof-60M.pb.gz"
  fi
  if [ ! -e "$DATA/synth-500k.Rprof" ] && [ ! -e "$DATA/synth-500k.Rprof.refused" ]; then
    step "proftab convert synth-500k.pb.gz --to rprof"
    if ! "$CLI" convert "$DATA/synth-500k.pb.gz" --to rprof -o "$DATA/synth-500k.Rprof" \
      2>"$DATA/synth-500k.Rprof.refused"; then
      rm -f "$DATA/synth-500k.Rprof"
      warn "pprof -> Rprof refused: $(head -c 300 "$DATA/synth-500k.Rprof.refused")"
    else
      rm -f "$DATA/synth-500k.Rprof.refused"
    fi
  fi
}

make_inputs
files=("$DATA/synth-500k.pb.gz" "$DATA/synth-500k.pb" "$DATA/rprof-60M.out" "$DATA/rprof-60M.pb.gz")
[ -s "$DATA/synth-500k.Rprof" ] && files+=("$DATA/synth-500k.Rprof")
step "measuring ${#files[@]} files × $REPS reps (load average now: $(cut -d' ' -f1-3 /proc/loadavg))"
node scripts/bench-parse.mjs --reps "$REPS" --wasm-runs "${BENCH_WASM_RUNS:-3}" --cli "$CLI" "${files[@]}"
