#!/usr/bin/env bash
# The docs check: what README.md and docs/ claim is what the code does.
#   1. every relative link and #anchor in the Markdown files resolves (tests/js/links.test.mjs);
#   2. the C++ API reference (Doxygen over core/include/tracelab) has an entry for every public name
#      (scripts/reference_cpp.sh; the HTML goes to build/api/cpp/);
#   3. the JS API reference (TypeDoc over the npm package's .d.mts files) has an entry for every exported name
#      (scripts/reference_js.sh; the HTML goes to build/api/js/);
#   4. every "```cpp runnable" block compiles natively, runs, exits 0 and prints its "```text output" block
#      (ctest label "docs" in build/native: the doc_blocks program);
#   5. every "```js runnable" block runs in Node on the built npm package, exits 0 and prints its output block
#      (tests/js/doc_blocks.test.mjs).
# It builds what it runs (incrementally: the native doc_blocks program and the WASM package) and stops at the
# first step that fails, with exit status 1. scripts/test.sh runs it after the WASM tests.
set -uo pipefail
cd "$(dirname "$0")/.."
export NODE_PATH=/usr/share/nodejs   # em++'s JS optimizer needs Debian's node modules

step() {
  echo; echo "--- docs check: $1 ---"
  shift
  "$@" || { echo "docs check FAILED: $*" >&2; exit 1; }
}

# The native preset is configured every time (a build tree made before the doc blocks existed has them off); the
# WASM one only when it has no build tree yet.
configured() { [ "$1" = wasm ] && [ -f build/wasm/CMakeCache.txt ] || cmake --preset "$1" >/dev/null; }

step "links and anchors" node --test tests/js/links.test.mjs
step "C++ reference" scripts/reference_cpp.sh
step "JS reference" scripts/reference_js.sh
step "C++ runnable blocks: build" eval 'configured native && cmake --build --preset native --target doc_blocks'
step "C++ runnable blocks: run" ctest --test-dir build/native -L docs --no-tests=error --output-on-failure -j 2
step "JS runnable blocks: build" eval 'configured wasm && cmake --build --preset wasm'
step "JS runnable blocks: run" env TRACELAB_DIST=build/wasm/dist node --test tests/js/doc_blocks.test.mjs
echo; echo "docs check: ok"
