#!/bin/sh
# Benchmark of the pprof reader on a real Go heap profile (generated here, never committed):
# `proftab top FILE` vs `go tool pprof -top FILE`, timed by bench/ab.mjs (A and B in turn, GNU
# time; medians, A/B ratios pair by pair). The profile (bench/go-heap/main.go) has 600,000
# records in the runtime's hash order, so consecutive samples share little and nearly every
# frame is a lookup in the stack-node table: the reader's worst order.
#
# Usage: sh bench/go_heap.sh [PROFTAB] [WORKDIR]
#   PROFTAB  the proftab binary (default target/release/proftab: `cargo build --release`)
#   WORKDIR  where the profile goes (default /tmp/proftab-go-heap-bench)
# Needs go (Debian golang-go), node and GNU time. Results: bench/RESULTS.md, issue #12.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PROFTAB=${1:-$ROOT/target/release/proftab}
WORK=${2:-/tmp/proftab-go-heap-bench}
mkdir -p "$WORK"
(cd "$ROOT/bench/go-heap" && GOFLAGS=-mod=mod go build -o "$WORK/goheap" .)
cd "$WORK"
[ -s heap-600k.pb.gz ] || ./goheap heap-600k.pb.gz
"$PROFTAB" info heap-600k.pb.gz | head -3
node "$ROOT/bench/ab.mjs" -n 3 --warmup 1 \
    --vs "go tool pprof -top $WORK/heap-600k.pb.gz" \
    -- "$PROFTAB" top heap-600k.pb.gz
