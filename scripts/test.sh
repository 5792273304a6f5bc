#!/usr/bin/env bash
# Builds everything and runs every test: the native doctest suite and install check, then the same doctest
# suite as WebAssembly under Node, the JS bridge tests and the browser test of the page.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # em++'s JS optimizer needs Debian's node modules

start=$(date +%s)
phase() { echo; echo "=== $* ==="; }
seconds() { echo $(( $(date +%s) - $1 )); }

phase "setup"
scripts/setup.sh test

phase "native: configure + build"
t=$(date +%s)
cmake --preset native >/dev/null
cmake --build --preset native
native_build=$(seconds "$t")

phase "native: tests"
t=$(date +%s)
ctest --preset native
native_test=$(seconds "$t")

phase "wasm: configure + build"
t=$(date +%s)
cmake --preset wasm >/dev/null
cmake --build --preset wasm
wasm_build=$(seconds "$t")

phase "wasm: tests (doctest under Node, JS bridge, browser page)"
t=$(date +%s)
ctest --preset wasm
wasm_test=$(seconds "$t")

phase "times"
printf '%-28s %5ss\n' "native build" "$native_build" "native tests" "$native_test" \
  "wasm build" "$wasm_build" "wasm tests" "$wasm_test" "total" "$(seconds "$start")"
