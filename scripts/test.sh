#!/usr/bin/env bash
# Builds everything and runs every test: for the native preset the doctest suite and the install check, for
# the wasm preset the same doctest suite under Node, the JS bridge tests and the browser test of the page.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # em++'s JS optimizer needs Debian's node modules

start=$(date +%s)
timings=()
seconds() { echo $(( $(date +%s) - $1 )); }

echo "=== setup ==="
scripts/setup.sh test

for preset in native wasm; do
  echo; echo "=== $preset: configure + build ==="
  t=$(date +%s)
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  timings+=("$preset build" "$(seconds "$t")")

  echo; echo "=== $preset: tests ==="
  t=$(date +%s)
  ctest --preset "$preset"
  timings+=("$preset tests" "$(seconds "$t")")
done

echo; echo "=== times ==="
timings+=("total" "$(seconds "$start")")
printf '%-16s %5ss\n' "${timings[@]}"
