#!/usr/bin/env bash
# Instructions per training step of the ragged experiment, counted by Valgrind's callgrind: a figure that does not
# move with the machine's load, for comparing two native builds when wall-clock medians drift more than the change
# being measured (on a shared 2-core VM they can move by half between runs of one build).
#
#   bench/count_instructions.sh [--modes eager,function,signature] BUILD_A [BUILD_B]
#     BUILD_*: a ragged_bench binary (e.g. build/native/bench/ragged_bench, or a copy of it from another commit)
#
# Each mode runs twice per binary, for 200 and for 1200 steps on the same 200 examples without warm-up, the limit
# for 200 steps in both (--limit-steps); the difference over the 1000 extra steps is one step's share (set-up,
# traces and the limit's runs cancel out, so traces are not in it: the first 200 steps trace every shape). Prints
# instructions per step and, for two builds, their ratio. A ragged_bench from before --limit-steps is refused: it
# ran the limit as many steps as the mode, twice, so its counts held two of the limit's steps (89,019).
# Needs valgrind (apt-get install -y valgrind; a measuring tool, not part of scripts/setup.sh). Counts say how much
# work a step does, not how long it takes: cache misses and branch mispredictions are not in them.
set -euo pipefail
modes=eager,function,signature
if [[ "${1:-}" == --modes ]]; then
  modes=$2
  shift 2
fi
if [[ $# -lt 1 || $# -gt 2 ]]; then
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
command -v valgrind > /dev/null || { echo "valgrind is not installed: apt-get install -y valgrind" >&2; exit 2; }
for binary in "$@"; do
  [[ -x "$binary" ]] || { echo "not an executable: $binary" >&2; exit 2; }
  grep -q -- --limit-steps "$binary" ||
    { echo "$binary has no --limit-steps (built before it): its counts would hold the limit's steps" >&2; exit 2; }
done

# Instructions callgrind counts for one run of `binary` in `mode` for `steps` steps.
count() {
  local binary=$1 mode=$2 steps=$3 out
  out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" --steps "$steps" --examples 200 \
        --warmup 0 --limit-steps 200 --modes "$mode" 2>&1 > /dev/null) || { echo "$out" >&2; exit 1; }
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<< "$out"
}

printf '%-12s' mode
for binary in "$@"; do printf ' %22s' "$(basename "$(dirname "$binary")")/$(basename "$binary")" | tail -c 23; done
[[ $# -eq 2 ]] && printf ' %8s' 'B / A'
printf '\n'
IFS=, read -ra list <<< "$modes"
for mode in "${list[@]}"; do
  printf '%-12s' "$mode"
  per_step=()
  for binary in "$@"; do
    short=$(count "$binary" "$mode" 200)
    long=$(count "$binary" "$mode" 1200)
    per_step+=($(( (long - short) / 1000 )))
    printf ' %22s' "${per_step[-1]}"
  done
  [[ $# -eq 2 ]] && awk -v a="${per_step[0]}" -v b="${per_step[1]}" 'BEGIN { printf " %8.4f", b / a }'
  printf '\n'
done
