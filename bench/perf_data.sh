#!/bin/sh
# Benchmark of the perf-data reader on a recording of at least 100 MB (generated here, never
# committed): `proftab top FILE` vs `perf report --stdio` (perf's defaults, `--no-children`, and
# the fastest form, `--no-children --sort sym -g none`) vs `perf script | proftab top -`,
# timed by bench/ab.mjs (A and B in turn, GNU time; medians, A/B ratios pair by pair).
#
# Usage: sh bench/perf_data.sh [PROFTAB] [WORKDIR]
#   PROFTAB  the proftab binary (default target/release/proftab: `cargo build --release`)
#   WORKDIR  where the recording goes (default /tmp/proftab-perf-data-bench)
# Needs perf, gcc, node and GNU time. Results of a run are in bench/RESULTS.md's perf-data section.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROFTAB=${1:-$ROOT/target/release/proftab}
WORK=${2:-/tmp/proftab-perf-data-bench}
mkdir -p "$WORK"
cd "$WORK"
gcc -g -O1 -fno-omit-frame-pointer -o work "$ROOT/tests/fixtures/perf-data/work.c"
# 50 kHz frame-pointer samples until the recording passes 100 MB (about 4 MB per second of
# the workload's CPU time here; the rounds double until it is large enough).
ROUNDS=1000
while [ ! -s big.data ] || [ "$(stat -c %s big.data)" -lt 100000000 ]; do
    perf record -q -g -e cpu-clock -F 50000 -o big.data ./work $ROUNDS
    ROUNDS=$((ROUNDS * 2))
done
ls -l big.data
"$PROFTAB" top big.data --limit 5
perf report -i big.data --stdio --no-children --sort sym -n -g none 2>/dev/null | grep -v '^#' | head -6
node "$ROOT/bench/ab.mjs" -n 2 --warmup 0 \
    --vs "perf report -i $WORK/big.data --stdio --no-children --sort sym -g none" \
    -- "$PROFTAB" top big.data
# The issue's command, `perf report --stdio`, with perf's defaults: on a -g recording it adds
# the children (inclusive) column and prints the call graph under each symbol.
node "$ROOT/bench/ab.mjs" -n 2 --warmup 0 \
    --vs "perf report -i $WORK/big.data --stdio" \
    -- "$PROFTAB" top big.data
# The flat self-time report the fidelity tests compare with, its call graphs still built.
node "$ROOT/bench/ab.mjs" -n 2 --warmup 0 \
    --vs "perf report -i $WORK/big.data --stdio --no-children" \
    -- "$PROFTAB" top big.data
node "$ROOT/bench/ab.mjs" -n 1 --warmup 0 \
    --vs "sh -c 'perf script -i $WORK/big.data | $PROFTAB top -'" \
    -- "$PROFTAB" top big.data
