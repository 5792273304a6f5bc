#!/usr/bin/env bash
# Builds the op benchmark as WASM twice — native WebAssembly exceptions (-fwasm-exceptions, our default) and
# Emscripten's JS-based exception catching — and runs both under Node, to show what the choice costs.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export NODE_PATH=/usr/share/nodejs
for mode in wasm js; do
  dir=build/wasm-exceptions-$mode
  cmake --preset wasm -B "$dir" -DTRACELAB_WASM_EXCEPTIONS=$mode -DTRACELAB_BUILD_TESTS=OFF >/dev/null
  cmake --build "$dir" --target ops_bench >/dev/null
  echo "== exceptions: $mode ($(stat -c %s "$dir/bench/ops_bench.js") bytes, wasm inlined)"
  node "$dir/bench/ops_bench.js"
done
