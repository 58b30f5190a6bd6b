#!/usr/bin/env bash
# Builds everything that ships, from the sources and the tools scripts/setup.sh installed:
#
#   pkg/web/   wasm-bindgen --target web    (ES module; the browser entry of the npm package)
#   pkg/node/  wasm-bindgen --target nodejs (CommonJS; the Node entry of the npm package)
#              Both without the `columnar` feature: the viewer's wasm never links the Arrow crates.
#   pkg/columnar-web/, pkg/columnar-node/  the same crate with `columnar` (Parquet / Arrow:
#              src/wasm_columnar.rs), loaded only when asked: `profile.toArrow()` of the npm
#              package, the viewer's Export → Parquet / Arrow and its SQL tab
#   dist/      the static viewer: www/ plus pkg/web (dist/pkg/), pkg/columnar-web
#              (dist/pkg/columnar/), DuckDB-wasm and apache-arrow for the SQL tab (dist/sql/duckdb/,
#              see sql_assets) and the example profiles of tests/fixtures
#              (scripts/examples.mjs), relative URLs only (any host, any sub-path)
#   dist-test/ dist/ plus www/test-hook.js, loaded by its index.html: the read-only
#              `window.__proftab` the browser tests and benchmarks use, and
#              www/worker-faults.js, imported by its worker.js: faults forced by the tests.
#              dist/ has neither.
#   target/release/proftab   the CLI (src/bin/proftab/ over src/cli/)
#
# Every .wasm file is optimized with npm binaryen's wasm-opt -O3 (never Debian's binaryen 108,
# which breaks wasm-bindgen's externref table). wasm-bindgen + wasm-opt are skipped when the
# cargo output has not changed since the last build (hash in pkg/.built-from).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

WASM_TARGET=wasm32-unknown-unknown
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
WASM_OUT="$TARGET_DIR/$WASM_TARGET/release/proftab.wasm"
# Cargo writes both builds to WASM_OUT: each is copied aside as soon as it is built.
WASM="$TARGET_DIR/$WASM_TARGET/release/proftab-viewer.wasm"
WASM_COLUMNAR="$TARGET_DIR/$WASM_TARGET/release/proftab-columnar.wasm"
STAMP=pkg/.built-from

command -v wasm-bindgen >/dev/null 2>&1 || die "wasm-bindgen is not on PATH: run scripts/setup.sh"
[ -x "$WASM_OPT" ] || die "$WASM_OPT missing: run scripts/setup.sh"

# cargo build for wasm32 with cargo feature arguments "$@", copied to $1's path.
build_wasm_one() {
  local out=$1
  shift
  step "cargo build --release --target $WASM_TARGET --lib $*"
  cargo build --release --locked --target "$WASM_TARGET" --lib "$@" || die "cargo build for $WASM_TARGET $* failed"
  [ -f "$WASM_OUT" ] || die "$WASM_OUT was not produced (is crate-type cdylib?)"
  cp "$WASM_OUT" "$out"
}

build_wasm() {
  build_wasm_one "$WASM" --no-default-features
  build_wasm_one "$WASM_COLUMNAR" --features columnar
}

# wasm-bindgen of module $3 for one target into pkg/<dir>, then wasm-opt -O3 in place.
bindgen_one() {
  local target=$1 dir=$2 wasm=$3
  rm -rf "$dir"
  wasm-bindgen --target "$target" --out-name proftab --out-dir "$dir" "$wasm" || die "wasm-bindgen --target $target failed"
  "$WASM_OPT" -O3 "$dir/proftab_bg.wasm" -o "$dir/proftab_bg.opt.wasm" || die "wasm-opt on $dir failed"
  mv "$dir/proftab_bg.opt.wasm" "$dir/proftab_bg.wasm"
}

# The web and node packages of module $1 into pkg/$2web and pkg/$2node.
bindgen_pair() {
  local wasm=$1 prefix=$2
  bindgen_one web "pkg/${prefix}web" "$wasm" &
  local web=$!
  bindgen_one nodejs "pkg/${prefix}node" "$wasm"
  wait "$web" || die "building pkg/${prefix}web failed"
  # The package is "type": "module"; the nodejs output is CommonJS.
  echo '{"type":"commonjs"}' >"pkg/${prefix}node/package.json"
}

bindgen_all() {
  local hash f
  hash="$(sha256sum "$WASM" "$WASM_COLUMNAR" | awk '{ print $1 }' | tr '\n' ' ')$(wasm-bindgen --version)"
  if [ "$(cat "$STAMP" 2>/dev/null || true)" = "$hash" ] \
    && [ -f pkg/web/proftab_bg.wasm ] && [ -f pkg/node/proftab_bg.wasm ] \
    && [ -f pkg/columnar-web/proftab_bg.wasm ] && [ -f pkg/columnar-node/proftab_bg.wasm ]; then
    step "pkg/web, pkg/node, pkg/columnar-web, pkg/columnar-node are up to date"
    return
  fi
  step "wasm-bindgen + wasm-opt -O3 -> pkg/web, pkg/node, pkg/columnar-web, pkg/columnar-node"
  rm -f "$STAMP"
  mkdir -p pkg
  bindgen_pair "$WASM" ""
  bindgen_pair "$WASM_COLUMNAR" columnar-
  echo "$hash" >"$STAMP"
  for f in pkg/web/proftab_bg.wasm pkg/columnar-web/proftab_bg.wasm; do
    note "$f: $(stat -c %s "$f") bytes"
  done
}

build_cli() {
  step "cargo build --release --bin proftab"
  cargo build --release --locked --bin proftab || die "building the CLI failed"
}

build_dist() {
  step "dist/ (www/ + pkg/web + example profiles)"
  [ -f www/index.html ] || die "www/index.html is missing"
  node scripts/examples.mjs || die "copying the example profiles failed"
  rm -rf dist
  mkdir -p dist
  cp -R www/. dist/
  rm dist/test-hook.js dist/worker-faults.js
  mkdir -p dist/pkg/columnar
  cp pkg/web/proftab.js pkg/web/proftab_bg.wasm dist/pkg/
  cp pkg/columnar-web/proftab.js pkg/columnar-web/proftab_bg.wasm dist/pkg/columnar/
  sql_assets dist/sql/duckdb
  # Relative URLs only: the viewer must work from any sub-path of any static host.
  if grep -rnE '(src|href)="/|from "/|import\("/' dist --include='*.html' --include='*.js' --include='*.mjs' \
    --include='*.css'; then
    die "dist/ has root-relative URLs (above); use relative ones"
  fi
  if grep -rln '__proftab' dist; then
    die "dist/ exposes the test hook (above); only dist-test/ may"
  fi
}

# The SQL tab's engine in $1: DuckDB-wasm's browser module, its worker and its wasm (the "eh"
# bundle: wasm exceptions, in every current browser), and apache-arrow, which DuckDB's module
# imports by the bare name "apache-arrow". No bundler: apache-arrow's self-contained script
# (loaded as a classic script, it sets globalThis.Arrow) plus arrow.mjs, a module that
# re-exports its names, and DuckDB's module with its import pointed at arrow.mjs.
sql_assets() {
  local out=$1 duck=node_modules/@duckdb/duckdb-wasm/dist arrow=node_modules/apache-arrow
  [ -f "$duck/duckdb-eh.wasm" ] || die "$duck/duckdb-eh.wasm is missing: run npm ci"
  [ -f "$arrow/Arrow.esnext.min.js" ] || die "$arrow/Arrow.esnext.min.js is missing: run npm ci"
  mkdir -p "$out"
  cp "$duck/duckdb-eh.wasm" "$duck/duckdb-browser-eh.worker.js" "$out/"
  sed 's|import\*as \([A-Za-z_$][A-Za-z0-9_$]*\) from"apache-arrow"|import*as \1 from"./arrow.mjs"|g' \
    "$duck/duckdb-browser.mjs" >"$out/duckdb-browser.mjs"
  grep -q 'from"apache-arrow"' "$out/duckdb-browser.mjs" && die "duckdb-browser.mjs still imports apache-arrow"
  sed '/^\/\/# sourceMappingURL/d' "$arrow/Arrow.esnext.min.js" >"$out/arrow.min.js"
  sed -i '/^\/\/# sourceMappingURL/d' "$out/duckdb-browser.mjs" "$out/duckdb-browser-eh.worker.js"
  node -e '
    const names = Object.keys(require(process.argv[1])).filter((n) => /^[A-Za-z_$][\w$]*$/.test(n) && n !== "default");
    process.stdout.write("// Generated by scripts/build.sh: the names of apache-arrow (arrow.min.js, loaded first as a\n// classic script, sets globalThis.Arrow) as a module, for duckdb-browser.mjs.\n");
    process.stdout.write("const A = globalThis.Arrow;\nif (!A) throw new Error(\"arrow.min.js was not loaded before arrow.mjs\");\n");
    process.stdout.write(`export const { ${names.join(", ")} } = A;\n`);
  ' "$ROOT/$arrow/Arrow.esnext.min.js" >"$out/arrow.mjs" || die "writing arrow.mjs failed"
}

# dist-test/: dist/ with the test hook, a module loaded after app.js, and the worker's
# test-only handlers (worker-faults.js) added to its handler table.
build_test_dist() {
  step "dist-test/ (dist/ + test-hook.js + worker-faults.js)"
  rm -rf dist-test
  cp -R dist dist-test
  cp www/test-hook.js www/worker-faults.js dist-test/
  printf '%s\n' 'import { faultHandlers } from "./worker-faults.js";' 'Object.assign(handlers, faultHandlers);' >>dist-test/worker.js
  sed -i 's|<script type="module" src="app.js"></script>|&\n<script type="module" src="test-hook.js"></script>|' dist-test/index.html
  grep -q 'src="test-hook.js"' dist-test/index.html || die "dist-test/index.html does not load test-hook.js"
}

started=$SECONDS
build_wasm
bindgen_all
build_cli
build_dist
build_test_dist
step "build done in $((SECONDS - started)) s"
