#!/usr/bin/env bash
# Builds everything and runs every test: for the native preset the doctest suite, the examples and the install
# checks; for the asan preset (clang, AddressSanitizer + UndefinedBehaviorSanitizer, libFuzzer coverage) the same
# suite and examples, and every fuzz target for 15 s (scripts/fuzz.sh); for the wasm preset the same suite under
# Node, the examples under Node, the JS API tests, tsc, the npm package and the browser tests of the page; then the
# docs check (scripts/check_docs.sh: links, the API references, every runnable block in README.md and docs/).
#
# The builds run one after another, each on every core; each preset's tests run while the next preset builds
# (their output is kept in build/logs/ and printed when they end). At the end, or when a phase fails, a table
# gives each phase's start and length in seconds; a failed phase makes the exit status 1.
# docs/building.md ("How long scripts/test.sh takes") has the measured figures; scripts/time_tests.sh measures a
# clean clone.
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # em++'s JS optimizer needs Debian's node modules
export TRACELAB_REQUIRE_TFJS=1        # the tests against TensorFlow.js fail, not skip, without it (setup.sh test installs it)

start=$(date +%s)
rows=()           # "phase|start|seconds|result"
background=()     # "phase|pid|start|log"
now() { echo $(( $(date +%s) - start )); }

print_table() {
  echo; echo "=== times (seconds from the start; background phases overlap the builds) ==="
  printf '%-22s %6s %8s  %s\n' phase start seconds result
  local row
  for row in "${rows[@]}"; do
    IFS='|' read -r name at took result <<<"$row"
    printf '%-22s %6s %8s  %s\n' "$name" "$at" "$took" "$result"
  done
  printf '%-22s %6s %8s\n' total 0 "$(now)"
}

fail() {
  echo; echo "=== FAILED: $1 ==="
  local job
  for job in "${background[@]}"; do
    IFS='|' read -r _ pid _ _ <<<"$job"
    kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
  done
  rows+=("$1|${2:-?}|$(( $(now) - ${2:-0} ))|FAILED")
  print_table
  exit 1
}

# run NAME COMMAND...: a phase in the foreground.
run() {
  local name=$1 at
  shift
  at=$(now)
  echo; echo "=== $name ==="
  "$@" || fail "$name" "$at"
  rows+=("$name|$at|$(( $(now) - at ))|ok")
}

# spawn NAME COMMAND...: a phase in the background, its output in build/logs/NAME.log (collect prints it).
spawn() {
  local name=$1 log="build/logs/${1// /-}.log"
  shift
  mkdir -p build/logs
  echo; echo "=== $name: started in the background (build/logs/${name// /-}.log) ==="
  set -m
  { local t0; t0=$(date +%s); "$@"; local status=$?; echo "$(( $(date +%s) - t0 ))" >"$log.seconds"; exit $status; } \
    >"$log" 2>&1 &
  set +m
  background+=("$name|$!|$(now)|$log")
}

# collect: waits for every background phase, in the order they started, and prints its output.
collect() {
  local job name pid at log status
  for job in "${background[@]}"; do
    IFS='|' read -r name pid at log <<<"$job"
    status=0
    wait "$pid" || status=$?
    echo; echo "=== $name (ran in the background from ${at}s) ==="
    cat "$log"
    [ "$status" -eq 0 ] || fail "$name" "$at"
    rows+=("$name|$at|$(cat "$log.seconds")|ok")
  done
  background=()
}

# Every tool a phase needs, each with the Debian package that brings it: a missing one stops the run here.
check_tools() {
  local missing=() tool package
  for pair in cmake:cmake ninja:ninja-build g++:g++ clang++:clang em++:emscripten node:nodejs npm:npm \
              chromium:chromium protoc:protobuf-compiler python3:python3 doxygen:doxygen; do
    tool=${pair%%:*}; package=${pair#*:}
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool (apt-get install $package)")
  done
  compgen -G '/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a' >/dev/null ||
    missing+=("libFuzzer (apt-get install libclang-rt-14-dev)")
  /usr/bin/python3 -c 'import google.protobuf' 2>/dev/null || missing+=("python3 protobuf (apt-get install python3-protobuf)")
  if [ "${#missing[@]}" -gt 0 ]; then
    printf 'test.sh: missing: %s\n' "${missing[@]}" >&2
    return 1
  fi
}

t=$(date +%s)
echo "=== setup (apt and npm packages) ==="
scripts/setup.sh test || fail "setup" 0
check_tools || fail "setup" 0
setup_seconds=$(( $(date +%s) - t ))
start=$(( start + setup_seconds ))   # the table counts from here; setup is reported on its own line
echo "setup: ${setup_seconds}s (apt and npm installs, not counted in the total below)"

build() { cmake --preset "$1" >/dev/null && cmake --build --preset "$1"; }

run "native build" build native
spawn "native tests" ctest --preset native
run "asan build" build asan
spawn "asan tests" ctest --preset asan
run "wasm build" build wasm
collect
run "wasm tests" ctest --preset wasm
run "docs check" scripts/check_docs.sh
run "fuzz run" scripts/fuzz.sh all 15

print_table
echo "setup                  (${setup_seconds} s, not counted)"
