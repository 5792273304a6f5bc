#!/usr/bin/env bash
# Builds everything and runs every test: for the native preset the doctest suite, the examples and the install
# check; for the asan preset the same suite under AddressSanitizer + UndefinedBehaviorSanitizer; for the wasm
# preset the same suite under Node, the examples under Node, the JS API tests and the browser tests of the page;
# then the fuzz preset (clang, libFuzzer + ASan + UBSan) and every fuzz target for 15 s, one per core at a time
# (scripts/fuzz.sh). docs/building.md ("How long scripts/test.sh takes") says what keeps the whole run short.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # em++'s JS optimizer needs Debian's node modules

start=$(date +%s)
timings=()
seconds() { echo $(( $(date +%s) - $1 )); }

echo "=== setup ==="
scripts/setup.sh test

for preset in native asan wasm; do
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

echo; echo "=== fuzz: configure + build ==="
t=$(date +%s)
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz
timings+=("fuzz build" "$(seconds "$t")")

echo; echo "=== fuzz: every target for 15 s ==="
t=$(date +%s)
scripts/fuzz.sh all 15
timings+=("fuzz run" "$(seconds "$t")")

echo; echo "=== times ==="
timings+=("total" "$(seconds "$start")")
printf '%-16s %5ss\n' "${timings[@]}"
