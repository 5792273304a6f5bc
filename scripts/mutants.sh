#!/usr/bin/env bash
# Mutation testing: proves the checks can fail. Each mutant below is one deliberate fault — a gradient sign
# flipped, a cache key ignoring dtype, a buffer released one step early, 32 bytes leaked per graph run, an example
# exiting 1 after printing, a lesson check inverted, a bad-input row's check dropped, ... — applied to a scratch
# clone of HEAD (committed work only), built incrementally, and the tests named for it are run: they must fail.
# The script prints a table (mutant, the test that caught it, seconds) and exits 1 if any mutant survives or
# cannot be applied (its code is no longer there: the list must follow the code).
#
#   scripts/mutants.sh                 every mutant
#   scripts/mutants.sh grad-sub-sign   only the named ones
#   scripts/mutants.sh --applicable    only checks that every mutant's text is still in its file exactly once (a
#                                      second; the native ctest mutants_applicable runs it, so an edit that moves
#                                      the text fails the test run instead of disabling the mutant silently)
#
# The scratch clone lives in build/mutants (its native build is kept between runs, so a second run is quick). The
# JavaScript mutants run the scratch's tests on a copy of this tree's WASM build (build/wasm/dist, which must be
# built: cmake --build --preset wasm). Not part of scripts/test.sh: about 4 minutes of mutants, plus the scratch
# clone's build (3 minutes the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
scratch=$repo/build/mutants
src=$scratch/tracelab
dist=$scratch/dist
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}

# ---- the mutants: name, file, the exact text (found exactly once), its replacement, how the fault is caught ----
# The checks: "doctest PATTERN" runs the native doctest binary on the cases matching PATTERN; "ctest REGEX" runs the
# native preset's ctest entries matching REGEX (the docs' C++ blocks among them); "js FILE" runs a node test file
# against the scratch's dist copy; "script CMD" runs a script of the scratch clone (the API reference checks).
names=() files=() olds=() news=() checks=()
mutant() { names+=("$1"); files+=("$2"); olds+=("$3"); news+=("$4"); checks+=("$5"); }

mutant grad-sub-sign core/ops/math_ops.cpp \
  'if (c.needs(1)) d[1] = unbroadcast(neg(c.grad()), c.input(1).shape());' \
  'if (c.needs(1)) d[1] = unbroadcast(c.grad(), c.input(1).shape());' \
  'doctest gradients: every differentiable op*'
mutant cache-key-ignores-dtype core/function/trace_key.cpp \
  'if (spec->dtype() != other.dtype() || spec->shape().rank() != other.shape().rank()) return false;' \
  'if (spec->shape().rank() != other.shape().rank()) return false;' \
  'doctest function/*'
mutant executor-releases-early core/graph/executor_plan.cpp \
  'if (last_use[v] != keep) by_step[last_use[v]].push_back(v);' \
  'if (last_use[v] != keep) by_step[last_use[v] > 0 ? last_use[v] - 1 : 0].push_back(v);' \
  'doctest executor/*'
mutant leak-32-bytes-per-run core/graph/executor.cpp \
  $'  RunScope scope(*this);\n  check_inputs(inputs);' \
  $'  RunScope scope(*this);\n  check_inputs(inputs);\n  struct Leak { Leak* next; char pad[24]; };\n  static Leak* leaked = nullptr;\n  leaked = new Leak{leaked, {}};' \
  'doctest ragged/heap*'
mutant squeeze-guesses-unknown-dims core/ops/layout_ops.cpp \
  'TL_CHECK(d >= 0, ShapeError, "squeeze: cannot squeeze every size-1 dim of ",' \
  'TL_CHECK(d >= 0 || true, ShapeError, "squeeze: cannot squeeze every size-1 dim of ",' \
  'doctest *registry walk*'
mutant bad-input-row-accepted core/experiments/ragged_config.cpp \
  $'  check_range("steps", steps, 1, 10\'000\'000);' \
  $'  check_range("steps", steps, 0, 10\'000\'000);' \
  'doctest bad input:*'
mutant example-exits-1-after-printing examples/ragged_model.cpp \
  $'    std::cerr << "ragged_model: " << e.kind() << ": " << e.what() << "\\n";\n    return 1;\n  }\n  return 0;\n}' \
  $'    std::cerr << "ragged_model: " << e.kind() << ": " << e.what() << "\\n";\n    return 1;\n  }\n  return 1;\n}' \
  'ctest ^example_ragged_model_warmup$'
mutant bad-flag-exits-0 examples/flags.h \
  $'      std::cerr << program_ << ": " << error.what() << "\\n\\n" << usage();\n      return 2;' \
  $'      std::cerr << program_ << ": " << error.what() << "\\n\\n" << usage();\n      return 0;' \
  'ctest ^example_tracing_rules_bad_flag$'
mutant lesson-check-inverted examples/tracing_rules.cpp \
  'return check(square_sum.tracing_count() == 1 && unknown_length' \
  'return check(square_sum.tracing_count() != 1 && unknown_length' \
  'ctest ^example_tracing_rules$'
mutant phase-2-trains-the-trunk examples/keras_transfer.cpp \
  '"task2", *model.path2, [&] { return model.head2->trainable_variables(); }' \
  '"task2", *model.path2, [&] { return model.path2->trainable_variables(); }' \
  'ctest ^example_keras_transfer$'
mutant tensor-array-write-lands-early core/ops/index_ops.cpp \
  'std::copy_n(value.data<T>(), row, dst + std::int64_t{index} * row);' \
  'std::copy_n(value.data<T>(), row, dst + std::int64_t{index > 1 ? index - 1 : index} * row);' \
  'ctest ^example_keras_transfer$'
mutant tensor-array-write-gradient-keeps-row core/ops/index_ops.cpp \
  'Tensor cleared = tensor_array_write(c.grad(), index, zeros_like(c.input(2)), false);' \
  'Tensor cleared = c.grad();' \
  'doctest gradients: every differentiable op*'
mutant cnn-stops-learning examples/custom_loop_cnn.cpp \
  'tl::optimizers::Adam optimizer{2e-3};' \
  'tl::optimizers::Adam optimizer{0.0};' \
  'ctest ^example_custom_loop_cnn$'
mutant ragged-trace-count-unchecked examples/ragged_model.cpp \
  'case RaggedMode::relaxed: return std::min(2, seen.lengths);' \
  'case RaggedMode::relaxed: return seen.lengths;' \
  'ctest ^example_ragged_model$'
mutant bench-exits-1 bench/ops_bench.cpp \
  $'  row("softmax f32[256,10]", median_us([&] { tl::softmax(logits); }, 2000));\n  return 0;' \
  $'  row("softmax f32[256,10]", median_us([&] { tl::softmax(logits); }, 2000));\n  return 1;' \
  'ctest ^bench_ops$'
mutant fresh-process-case-renamed tests/control_flow_test.cpp \
  'TEST_CASE("graph JSON in a fresh process' \
  'TEST_CASE("graph JSON, fresh process' \
  'ctest ^graph_json_fresh_process$'
mutant tutorial-cell-trains-the-trunk web/tutorials/keras-transfer.html \
  'const variables = shared.head2.trainableWeights;' \
  'const variables = [...shared.trunk.trainableWeights, ...shared.head2.trainableWeights];' \
  'js tests/js/tutorial_checks.test.mjs'
mutant crossover-off-by-one web/tutorials/retracing.html \
  'crossovers[m.mode] = lastBehind + 1 < steps ? lastBehind + 1 : -1;' \
  'crossovers[m.mode] = lastBehind + 2 < steps ? lastBehind + 2 : -1;' \
  'js tests/js/tutorial_checks.test.mjs'
mutant js-random-normal-skewed wasm/tracelab.mjs \
  'Math.cos(2 * Math.PI * nextRandom())' \
  'Math.cos(1.9 * Math.PI * nextRandom())' \
  'js tests/js/api.test.mjs'
mutant doc-quotes-a-stale-cell docs/tutorials/06-keras-transfer.md \
  'const variables = shared.head2.trainableWeights;' \
  'const variables = shared.head2.weights;' \
  'js tests/js/tutorial_docs.test.mjs'
mutant readme-output-stale README.md \
  $'values=[[-18.] [-26.]])\ntraces: 2\n```\n\nFrom your own CMake' \
  $'values=[[-18.] [-26.]])\ntraces: 1\n```\n\nFrom your own CMake' \
  'ctest ^doc_block_readme_'
mutant js-doc-block-output-stale docs/playground.md \
  'bucketed  4 traces at steps [0,1,3,4]  last loss 0.057011' \
  'bucketed  4 traces at steps [0,1,3,5]  last loss 0.057011' \
  'js tests/js/doc_blocks.test.mjs'
mutant cpp-function-undocumented core/include/tracelab/base/dtype.h \
  $'/// Bytes per element.\n' \
  '' \
  'script scripts/reference_cpp.sh'
mutant js-export-undocumented wasm/tracelab.d.mts \
  $'/** Records ops from construction until stopRecording() or dispose() (tf.GradientTape). */\n' \
  '' \
  'script scripts/reference_js.sh'
mutant readme-anchor-broken README.md \
  '(docs/building.md#installing-the-cmake-package)' \
  '(docs/building.md#installing-the-cmake-packages)' \
  'js tests/js/links.test.mjs'
mutant math-sin-grad-sign core/ops/math_ops.cpp \
  'd[0] = c.grad() * cos(c.input(0)); });' \
  'd[0] = neg(c.grad()) * cos(c.input(0)); });' \
  'doctest gradients: every differentiable op*'
mutant tfjs-numbers-take-the-tensors-dtype wasm/js/ops.mjs \
  'const own = x instanceof Tensor ? x.dtype : isTensorLike(x) ? dtypes[i] ?? inferDtype(x) : undefined;' \
  'const own = x instanceof Tensor ? x.dtype : undefined;' \
  'js tests/js/tfjs_promotion.test.mjs'
mutant tfjs-mirror-pad-reflects-the-edge wasm/js/tfjs/slice.mjs \
  "offset = mode === 'reflect' ? 1 : 0;" \
  "offset = mode === 'reflect' ? 0 : 0;" \
  'js tests/js/tfjs_diff.test.mjs'
mutant tfjs-unique-traced-silently wasm/js/tfjs/value_shaped.mjs \
  'if (t.symbolic || t.engine.tracing > 0)' \
  'if (false)' \
  'js tests/js/tfjs_value_shaped.test.mjs'

# Replaces the one occurrence of OLD in FILE by NEW; fails when OLD occurs zero or several times.
apply() {
  OLD=$2 NEW=$3 perl -0pi -e 'BEGIN { $n = 0 } $n = s/\Q$ENV{OLD}\E/$ENV{NEW}/g; END { exit($n == 1 ? 0 : 1) }' "$1"
}

# ---- --applicable: every mutant applies to a copy of its file in this tree; nothing is built or run ----
if [ "${1:-}" = --applicable ]; then
  stale=0 copy=$(mktemp)
  trap 'rm -f "$copy"' EXIT
  for i in "${!names[@]}"; do
    if ! cp "${files[$i]}" "$copy" 2>/dev/null || ! apply "$copy" "${olds[$i]}" "${news[$i]}"; then
      echo "mutants: ${names[$i]}: its text is not in ${files[$i]} exactly once: follow the code's change"
      stale=$((stale + 1))
    fi
  done
  [ $stale -eq 0 ] || exit 1
  echo "mutants: all ${#names[@]} can be applied"
  exit 0
fi

# ---- running them ----
selected=("$@")
wanted() { [ ${#selected[@]} -eq 0 ] && return 0; local s; for s in "${selected[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
for s in "${selected[@]}"; do
  found=0; for n in "${names[@]}"; do [ "$n" = "$s" ] && found=1; done
  [ $found = 1 ] || { echo "mutants: no mutant named '$s' (known: ${names[*]})" >&2; exit 2; }
done

mkdir -p "$scratch"
if [ -d "$src/.git" ]; then
  git -C "$src" fetch --quiet "$repo" HEAD && git -C "$src" reset --quiet --hard FETCH_HEAD && git -C "$src" clean -qfd
else
  git clone --quiet "$repo" "$src"
fi
ln -sfn "$repo/node_modules" "$src/node_modules"
# TF.js, the oracle of the tfjs_* tests (scripts/setup.sh test installs it); those tests fail without it.
[ -d "$repo/bench/js/node_modules" ] && ln -sfn "$repo/bench/js/node_modules" "$src/bench/js/node_modules"
export TRACELAB_REQUIRE_TFJS=1
echo "mutants: scratch clone of $(git -C "$src" rev-parse --short HEAD) in $src"
needs_js=0
for i in "${!names[@]}"; do wanted "${names[$i]}" && [[ ${checks[$i]} == js* ]] && needs_js=1; done
if [ $needs_js = 1 ]; then
  [ -f "$repo/build/wasm/dist/tracelab.mjs" ] || { echo "mutants: the JS mutants need build/wasm/dist (cmake --preset wasm && cmake --build --preset wasm)" >&2; exit 2; }
  rm -rf "$dist"; cp -r "$repo/build/wasm/dist" "$dist"
fi
echo "mutants: building the scratch clone (native preset; kept between runs)"
(cd "$src" && cmake --preset native >/dev/null && cmake --build --preset native >"$scratch/build.log" 2>&1) ||
  { tail -30 "$scratch/build.log"; echo "mutants: the unmutated scratch clone does not build" >&2; exit 1; }

# Runs one check in the scratch clone; its output goes to $log. Exit status 0 means the tests passed.
run_check() {
  local check=$1 log=$2
  case $check in
    doctest\ *)
      cmake --build "$src/build/native" --target tracelab_tests >"$log" 2>&1 || return 3
      "$src/build/native/tests/tracelab_tests" --no-version --no-colors "--test-case=${check#doctest }" >>"$log" 2>&1 ;;
    ctest\ *)
      cmake --build "$src/build/native" >"$log" 2>&1 || return 3
      ctest --test-dir "$src/build/native" --no-tests=error -R "${check#ctest }" --output-on-failure >>"$log" 2>&1 ;;
    js\ *)
      # The facade's modules are copied into the dist folder as the build copies them.
      cp "$src/wasm/tracelab.mjs" "$dist/tracelab.mjs"; cp -r "$src/wasm/js/." "$dist/js/"
      TRACELAB_DIST=$dist node --test "$src/${check#js }" >"$log" 2>&1 ;;
    script\ *)
      (cd "$src" && ${check#script }) >"$log" 2>&1 ;;
  esac
}

rows=() survived=0
for i in "${!names[@]}"; do
  name=${names[$i]}
  wanted "$name" || continue
  file=${files[$i]} check=${checks[$i]} log=$scratch/$name.log
  start=$(date +%s)
  if ! apply "$src/$file" "${olds[$i]}" "${news[$i]}"; then
    rows+=("$name|$file|NOT APPLIED: the text to mutate is not in the file exactly once|0"); survived=$((survived + 1))
    git -C "$src" checkout --quiet -- "$file"
    continue
  fi
  set +e; run_check "$check" "$log"; status=$?; set -e
  seconds=$(( $(date +%s) - start ))
  case $status in
    0) rows+=("$name|$file|SURVIVED: $check passed (log: $log)|$seconds"); survived=$((survived + 1)) ;;
    3) rows+=("$name|$file|DID NOT BUILD: a mutant must compile to test the checks (log: $log)|$seconds"); survived=$((survived + 1)) ;;
    *) rows+=("$name|$file|killed by $check|$seconds") ;;
  esac
  git -C "$src" checkout --quiet -- "$file"
  echo "  $name: ${rows[-1]##*|} s"
done
# Leave the scratch build matching the clean sources, so the next run starts from it.
cmake --build "$src/build/native" >/dev/null 2>&1 || true

echo
printf '%-34s %-38s %s\n' mutant file "caught by (seconds)"
for row in "${rows[@]}"; do
  IFS='|' read -r name file what seconds <<<"$row"
  printf '%-34s %-38s %s (%s s)\n' "$name" "$file" "$what" "$seconds"
done
echo
if [ $survived -gt 0 ]; then
  echo "mutants: $survived of ${#rows[@]} survived or could not be applied"
  exit 1
fi
echo "mutants: all ${#rows[@]} killed"
