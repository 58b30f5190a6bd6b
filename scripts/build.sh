#!/usr/bin/env bash
# Builds everything that ships, from the sources and the tools scripts/setup.sh installed:
#
#   pkg/web/   wasm-bindgen --target web    (ES module; the browser entry of the npm package)
#   pkg/node/  wasm-bindgen --target nodejs (CommonJS; the Node entry of the npm package)
#   dist/      the static viewer: www/ plus pkg/web and the example profiles of
#              tests/fixtures (scripts/examples.mjs), relative URLs only (any host, any sub-path)
#   dist-test/ dist/ plus www/test-hook.js, loaded by its index.html: the read-only
#              `window.__proftab` the browser tests and benchmarks use, and
#              www/worker-faults.js, imported by its worker.js: faults forced by the tests.
#              dist/ has neither.
#   target/release/proftab   the CLI (src/bin/proftab/ over src/cli/)
#
# Both .wasm files are optimized with npm binaryen's wasm-opt -O3 (never Debian's binaryen 108,
# which breaks wasm-bindgen's externref table). wasm-bindgen + wasm-opt are skipped when the
# cargo output has not changed since the last build (hash in pkg/.built-from).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

WASM_TARGET=wasm32-unknown-unknown
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
WASM="$TARGET_DIR/$WASM_TARGET/release/proftab.wasm"
STAMP=pkg/.built-from

command -v wasm-bindgen >/dev/null 2>&1 || die "wasm-bindgen is not on PATH: run scripts/setup.sh"
[ -x "$WASM_OPT" ] || die "$WASM_OPT missing: run scripts/setup.sh"

build_wasm() {
  step "cargo build --release --target $WASM_TARGET --lib"
  cargo build --release --locked --target "$WASM_TARGET" --lib || die "cargo build for $WASM_TARGET failed"
  [ -f "$WASM" ] || die "$WASM was not produced (is crate-type cdylib?)"
}

# wasm-bindgen for one target into pkg/<dir>, then wasm-opt -O3 in place.
bindgen_one() {
  local target=$1 dir=$2
  rm -rf "$dir"
  wasm-bindgen --target "$target" --out-dir "$dir" "$WASM" || die "wasm-bindgen --target $target failed"
  "$WASM_OPT" -O3 "$dir/proftab_bg.wasm" -o "$dir/proftab_bg.opt.wasm" || die "wasm-opt on $dir failed"
  mv "$dir/proftab_bg.opt.wasm" "$dir/proftab_bg.wasm"
}

bindgen_all() {
  local hash
  hash="$(sha256sum "$WASM" | awk '{ print $1 }') $(wasm-bindgen --version)"
  if [ "$(cat "$STAMP" 2>/dev/null || true)" = "$hash" ] \
    && [ -f pkg/web/proftab_bg.wasm ] && [ -f pkg/node/proftab_bg.wasm ]; then
    step "pkg/web, pkg/node are up to date"
    return
  fi
  step "wasm-bindgen + wasm-opt -O3 -> pkg/web, pkg/node"
  rm -f "$STAMP"
  mkdir -p pkg
  bindgen_one web pkg/web &
  local web=$!
  bindgen_one nodejs pkg/node
  wait "$web" || die "building pkg/web failed"
  # The package is "type": "module"; the nodejs output is CommonJS.
  echo '{"type":"commonjs"}' >pkg/node/package.json
  echo "$hash" >"$STAMP"
  note "pkg/web/proftab_bg.wasm: $(stat -c %s pkg/web/proftab_bg.wasm) bytes"
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
  mkdir -p dist/pkg
  cp pkg/web/proftab.js pkg/web/proftab_bg.wasm dist/pkg/
  # Relative URLs only: the viewer must work from any sub-path of any static host.
  if grep -rnE '(src|href)="/|from "/|import\("/' dist --include='*.html' --include='*.js' --include='*.mjs' \
    --include='*.css'; then
    die "dist/ has root-relative URLs (above); use relative ones"
  fi
  if grep -rln '__proftab' dist; then
    die "dist/ exposes the test hook (above); only dist-test/ may"
  fi
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
