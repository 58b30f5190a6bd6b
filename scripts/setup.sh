#!/usr/bin/env bash
# Installs everything proftab needs to build and test, and nothing that is already there.
#
#   - Rust target wasm32-unknown-unknown (+ rustfmt, clippy)
#   - Debian packages: chromium + chromium-driver (browser tests; required),
#     r-base-core + r-cran-profvis + golang-go + valgrind (reference judges R, profvis, `go tool pprof` and
#     `callgrind_annotate`; optional: tests skip visibly without them), r-cran-htmltools (the R page of
#     the README's embedding example, tests/browser/embed-r.test.mjs), time (GNU /usr/bin/time: max RSS in scripts/bench-parse.sh)
#   - wasm-bindgen-cli at exactly the wasm-bindgen version of Cargo.lock
#   - npm devDependencies from package-lock.json (playwright-core, binaryen's wasm-opt)
#   - crates of Cargo.lock (cargo fetch --locked)
#   - pip duckdb + pyarrow (the judges of the Parquet / Arrow datasets, tests/columnar_judges.rs)
#
# Idempotent: a second run checks, installs nothing and takes a few seconds.
# Never installs Debian's binaryen: its wasm-opt (108) corrupts wasm-bindgen output.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

WASM_TARGET=wasm32-unknown-unknown
REQUIRED_DEBS=(chromium chromium-driver)
OPTIONAL_DEBS=(r-base-core r-cran-profvis r-cran-htmltools golang-go valgrind time)

deb_installed() {
  [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo "$@"
  else
    die "need root (or sudo) to run: $*"
  fi
}

APT_UPDATED=0
apt_update_once() {
  [ "$APT_UPDATED" = 1 ] && return 0
  step "apt-get update"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || die "apt-get update failed"
  APT_UPDATED=1
}

apt_install() {
  apt_update_once
  step "apt-get install $*"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

missing_debs() {
  local p
  for p in "$@"; do deb_installed "$p" || echo "$p"; done
}

check_base_tools() {
  step "base tools"
  local t
  for t in cargo rustup; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' is not on PATH: install Rust with rustup first"
  done
  [ -f Cargo.lock ] || die "Cargo.lock is missing: it must be committed (the wasm-bindgen version is read from it)"
  [ -f package-lock.json ] || die "package-lock.json is missing: it must be committed (npm ci needs it)"
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    command -v dpkg-query >/dev/null 2>&1 || die "node and npm are missing and this is not a Debian system"
    note "node/npm missing: installing Debian's nodejs + npm"
    apt_install nodejs npm || die "apt-get install nodejs npm failed"
  fi
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 18 ] || die "node >= 18 is needed, found $(node --version)"
}

rust_target_and_components() {
  step "rust target $WASM_TARGET, rustfmt, clippy"
  rustup target list --installed | grep -x "$WASM_TARGET" >/dev/null \
    || rustup target add "$WASM_TARGET" || die "rustup target add $WASM_TARGET failed"
  cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt || die "rustup component add rustfmt failed"
  cargo clippy --version >/dev/null 2>&1 || rustup component add clippy || die "rustup component add clippy failed"
}

debian_packages() {
  step "Debian packages: ${REQUIRED_DEBS[*]} ${OPTIONAL_DEBS[*]}"
  command -v dpkg-query >/dev/null 2>&1 || die "not a Debian system: install ${REQUIRED_DEBS[*]} by hand"
  local need
  need=$(missing_debs "${REQUIRED_DEBS[@]}")
  if [ -n "$need" ]; then
    # shellcheck disable=SC2086
    apt_install $need || die "apt-get install $need failed (the browser tests need it)"
  fi
  [ -x /usr/bin/chromium ] || die "/usr/bin/chromium is missing after installing chromium"
  local p
  for p in $(missing_debs "${OPTIONAL_DEBS[@]}"); do
    apt_install "$p" \
      || warn "apt-get install $p failed: tests that use it as a reference will print SKIP"
  done
}

wasm_bindgen_cli() {
  local want have
  want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/^version = "|"$/, ""); print; exit }' Cargo.lock)
  [ -n "$want" ] || die "could not read the wasm-bindgen version from Cargo.lock"
  step "wasm-bindgen-cli $want"
  have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
  if [ "$have" != "$want" ] || ! command -v wasm-bindgen-test-runner >/dev/null 2>&1; then
    note "installing wasm-bindgen-cli =$want (found '${have:-none}'); this compiles for a few minutes"
    cargo install wasm-bindgen-cli --version "=$want" --locked \
      || {
        warn "cargo install --locked failed (the registry index may lag its lock file); retrying unlocked"
        cargo install wasm-bindgen-cli --version "=$want"
      } \
      || die "cargo install wasm-bindgen-cli --version =$want failed"
  fi
  have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
  [ "$have" = "$want" ] || die "wasm-bindgen on PATH is '$have', Cargo.lock needs $want ($(command -v wasm-bindgen))"
  command -v wasm-bindgen-test-runner >/dev/null 2>&1 || die "wasm-bindgen-test-runner is not on PATH"
}

npm_packages() {
  step "npm devDependencies (package-lock.json)"
  local stamp=node_modules/.proftab-lock.sha256 want
  want=$(sha256sum package-lock.json | awk '{ print $1 }')
  if [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ] || [ ! -x "$WASM_OPT" ] \
    || [ ! -d node_modules/playwright-core ]; then
    npm ci --no-audit --no-fund || die "npm ci failed"
    echo "$want" >"$stamp"
  fi
  [ -x "$WASM_OPT" ] || die "$WASM_OPT missing: npm package binaryen is not installed"
  "$WASM_OPT" --version >/dev/null || die "$WASM_OPT does not run"
}

# The judges of tests/columnar_judges.rs, pinned to the versions the tests were written with.
PY_JUDGES=(duckdb==2.0.1 pyarrow==26.0.1)

python_judges() {
  step "python3 packages: ${PY_JUDGES[*]}"
  command -v python3 >/dev/null 2>&1 || die "python3 is not on PATH (the Parquet/Arrow judges need it)"
  if python3 -c "import duckdb, pyarrow" >/dev/null 2>&1; then
    return
  fi
  python3 -m pip install --quiet --break-system-packages "${PY_JUDGES[@]}" \
    || die "pip install ${PY_JUDGES[*]} failed (tests/columnar_judges.rs needs them)"
  python3 -c "import duckdb, pyarrow" || die "duckdb or pyarrow does not import after pip install"
}

crates() {
  step "crates (cargo fetch --locked)"
  cargo fetch --locked --quiet || die "cargo fetch --locked failed: is Cargo.lock up to date with Cargo.toml?"
}

started=$SECONDS
check_base_tools
rust_target_and_components
debian_packages
wasm_bindgen_cli
npm_packages
python_judges
crates
step "setup done in $((SECONDS - started)) s"
