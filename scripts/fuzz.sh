#!/usr/bin/env bash
# Builds the fuzz targets of tests/fuzz (the asan preset: clang, libFuzzer + ASan + UBSan; its build preset `fuzz`
# builds just them) and runs them.
#
#   scripts/fuzz.sh                 every target for 15 s, one per core at a time (about 45 s in all on 2 cores):
#                                   the run scripts/test.sh does
#   scripts/fuzz.sh op_call 3600    one target for an hour, for local bug hunting (its corpus grows across runs)
#   scripts/fuzz.sh all 120         every target for 120 s each
#   FUZZ_JOBS=1 scripts/fuzz.sh     one target at a time
#   scripts/fuzz.sh js 120 [--seed N]   the JS API under fast-check (tests/js/fuzz/api_fuzz.mjs) for 120 s on the
#                                   WASM build, seeded: TRACELAB_FUZZ_SEED or --seed (default: a new one, printed);
#                                   replay a failure with the seed and path its report prints
#
# Targets: graph_json checkpoint op_call trace_key saved_model (docs/reliability.md, "Fuzzing", says what each checks).
# Each run starts from a copy of the committed seeds (tests/fuzz/corpus/<target>, never modified; a target whose
# seed folder is missing or empty is an error) in build/asan/fuzz/runs/<target>/ (hunting:
# build/asan/fuzz/hunt/<target>/, kept between runs). Exits non-zero when any
# target finds a crash, sanitizer report, leak, timeout or failed check, and prints where the input was saved;
# reproduce with   build/asan/tests/fuzz/fuzz_<target> <saved input>
set -euo pipefail
cd "$(dirname "$0")/.."

# The JS API's property-based fuzzer: no libFuzzer build, the WASM build's dist folder and node's test runner.
if [ "${1:-}" = js ]; then
  seconds=${2:-60}
  seed=${TRACELAB_FUZZ_SEED:-}
  if [ "${3:-}" = --seed ]; then seed=${4:?--seed needs a number}; fi
  [ -n "$seed" ] || seed=$(( (RANDOM << 15) | RANDOM ))
  dist=${TRACELAB_DIST:-build/wasm/dist}
  [ -f "$dist/tracelab.mjs" ] || { echo "fuzz js: no WASM build in $dist (cmake --build --preset wasm)" >&2; exit 2; }
  echo "=== fuzz js: ${seconds}s, seed $seed (replay: TRACELAB_FUZZ_SEED=$seed scripts/fuzz.sh js $seconds) ==="
  TRACELAB_DIST="$dist" TRACELAB_FUZZ_SEED="$seed" TRACELAB_FUZZ_SECONDS="$seconds" \
    node --test --test-reporter=spec tests/js/fuzz_api.test.mjs
  exit $?
fi

all_targets=(graph_json checkpoint op_call trace_key saved_model)
target=${1:-all}
seconds=${2:-15}
if [ "$target" = all ]; then targets=("${all_targets[@]}"); else targets=("$target"); fi
for t in "${targets[@]}"; do
  [ -d "tests/fuzz/corpus/$t" ] || { echo "fuzz: unknown target '$t' (${all_targets[*]})" >&2; exit 2; }
  [ -n "$(ls -A "tests/fuzz/corpus/$t")" ] || { echo "fuzz: the seed corpus tests/fuzz/corpus/$t is empty" >&2; exit 2; }
done
# The default run starts afresh each time (comparable numbers); hunting keeps what it learnt.
if [ $# -ge 1 ] && [ "$target" != all ]; then area=hunt; else area=runs; fi

# Two hunts may run side by side; their builds of the one folder must not.
mkdir -p build/asan
flock build/asan/.fuzz-build.lock sh -c 'cmake --preset asan >/dev/null && cmake --build --preset fuzz'

# One target's run: libFuzzer's log in $dir/fuzz.log, its exit status in $dir/status.
run_target() {
  local t=$1 dir="build/asan/fuzz/$area/$1"
  [ "$area" = runs ] && rm -rf "$dir"
  mkdir -p "$dir/corpus"
  rm -f "$dir/status"
  if ! cp -n tests/fuzz/corpus/"$t"/* "$dir/corpus/" 2>"$dir/fuzz.log"; then
    echo 2 >"$dir/status"
    return
  fi
  local args=(-max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1
              -artifact_prefix="$dir/")
  [ "$t" = graph_json ] && args+=(-dict=tests/fuzz/corpus/graph_json.dict)
  local status=0
  "build/asan/tests/fuzz/fuzz_$t" "${args[@]}" "$dir/corpus" >"$dir/fuzz.log" 2>&1 || status=$?
  echo "$status" >"$dir/status"
}

# The targets run side by side, FUZZ_JOBS at a time (default: one per core), each for the full $seconds on a core
# of its own; the reports follow in target order once all have finished.
jobs_max=${FUZZ_JOBS:-$(nproc)}
echo; echo "=== fuzz ${targets[*]}: ${seconds}s each, $jobs_max at a time ==="
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  run_target "$t" &
done
wait

failed=()
for t in "${targets[@]}"; do
  dir="build/asan/fuzz/$area/$t"
  status=$(cat "$dir/status" 2>/dev/null || echo 1)
  echo; echo "=== fuzz $t: ${seconds}s (log: $dir/fuzz.log) ==="
  # libFuzzer's summary: executions, speed, coverage, corpus and memory.
  grep -E '^#[0-9]+[[:space:]]+DONE' "$dir/fuzz.log" | tail -1 || true
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$dir/fuzz.log" | tr '\n' ' ' || true
  echo
  if [ "$status" -ne 0 ]; then
    failed+=("$t")
    echo "fuzz $t: FOUND A PROBLEM (exit $status):"
    grep -E '==== fuzz finding|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' \
      "$dir/fuzz.log" | head -5 || true
    for saved in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* "$dir"/slow-unit-*; do
      [ -e "$saved" ] && echo "  input saved to $saved   (reproduce: build/asan/tests/fuzz/fuzz_$t $saved)"
    done
  fi
done

echo
if [ "${#failed[@]}" -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}"
  exit 1
fi
echo "fuzz: ${targets[*]}: no findings"
