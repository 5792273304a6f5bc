#!/usr/bin/env bash
# Builds the WebAssembly core (if needed) and serves the playground on http://127.0.0.1:${PORT:-8080}/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export NODE_PATH=/usr/share/nodejs   # em++'s JS optimizer needs Debian's node modules
[ -f build/wasm/build.ninja ] || cmake --preset wasm >/dev/null
cmake --build --preset wasm --target tracelab_js
exec node scripts/serve.mjs --port "${PORT:-8080}"   # the site: web/, build/wasm/dist at /lib/, examples/tfjs
