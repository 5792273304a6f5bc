#!/usr/bin/env bash
# Measures the test loop as a new contributor meets it: a fresh clone of HEAD (committed work only) in a scratch
# folder, `scripts/test.sh` run there from nothing built, then (with --incremental FILE) run again after touching
# FILE, as after an edit. Prints each run's phase table and, at the end, every run's total. A benchmark, not a
# test: it asserts nothing about the figures. Measure on a quiet machine (no other build running).
#
#   scripts/time_tests.sh                                    one clean run
#   scripts/time_tests.sh --runs 3 --incremental core/ops/math_ops.cpp
#   scripts/time_tests.sh --keep                             keep the clone (its path is printed)
set -euo pipefail
cd "$(dirname "$0")/.."

runs=1 incremental="" keep=0
while [ $# -gt 0 ]; do
  case $1 in
    --runs) runs=${2:?--runs needs a number}; shift 2 ;;
    --incremental) incremental=${2:?--incremental needs a file}; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "time_tests: unknown option $1 (--runs N, --incremental FILE, --keep)" >&2; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "time_tests: --runs must be a whole number >= 1, got '$runs'" >&2; exit 2; }
[ -z "$incremental" ] || [ -f "$incremental" ] || { echo "time_tests: no file $incremental" >&2; exit 2; }

repo=$(pwd)
summary=()
for run in $(seq 1 "$runs"); do
  scratch=$(mktemp -d /tmp/tracelab-time-XXXXXX)
  git clone --quiet "$repo" "$scratch/tracelab"
  echo "=== run $run of $runs: clean clone of $(git rev-parse --short HEAD) in $scratch/tracelab ==="
  log="$scratch/clean.log"
  t=$(date +%s)
  (cd "$scratch/tracelab" && scripts/test.sh) >"$log" 2>&1 || { tail -40 "$log"; echo "time_tests: test.sh failed (log: $log)"; exit 1; }
  clean=$(( $(date +%s) - t ))
  sed -n '/^=== times/,$p' "$log"
  line="run $run: clean ${clean}s wall (test.sh's total: $(awk '$1=="total"{print $3}' "$log")s after setup)"
  if [ -n "$incremental" ]; then
    touch "$scratch/tracelab/$incremental"
    log="$scratch/incremental.log"
    t=$(date +%s)
    (cd "$scratch/tracelab" && scripts/test.sh) >"$log" 2>&1 || { tail -40 "$log"; echo "time_tests: incremental test.sh failed (log: $log)"; exit 1; }
    echo "--- incremental, after touching $incremental ---"
    sed -n '/^=== times/,$p' "$log"
    line+=", incremental $(( $(date +%s) - t ))s"
  fi
  summary+=("$line")
  if [ "$keep" = 1 ]; then echo "kept: $scratch"; else rm -rf "$scratch"; fi
done
echo; echo "=== summary ==="
printf '%s\n' "${summary[@]}"
