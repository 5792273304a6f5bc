#!/usr/bin/env bash
# Installs whatever Tracelab needs on Debian and is missing; safe to run again (it then does nothing).
#   scripts/setup.sh          build + serve needs: compilers, Emscripten, Eigen, nlohmann/json, doctest, Node, npm packages
#   scripts/setup.sh test     the same plus what the tests need: Chromium (browser tests), clang and its
#                             libFuzzer runtime (the asan preset; libclang-rt-14-dev is Debian 12's), protoc and
#                             Debian's python3-protobuf (the TensorBoard event-file checker, tests/tensorboard/),
#                             Doxygen (the C++ API reference, scripts/reference_cpp.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

want=(cmake ninja-build g++ emscripten libeigen3-dev nlohmann-json3-dev doctest-dev)
command -v node >/dev/null 2>&1 || want+=(nodejs)
[ "${1:-}" = test ] && want+=(chromium clang libclang-rt-14-dev protobuf-compiler python3-protobuf doxygen)

missing=()
for package in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
# NodeSource's nodejs bundles npm; Debian's does not.
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages: the page's (uPlot, dagre, bundled by esbuild), AutoGraph's parser (acorn, astring, bundled too), the
# tests' (playwright-core, typescript), the JS API reference's (typedoc), AutoGraph's source map writer (source-map-js). Installed for serving too: the
# page is built from them. The JS benchmark's TensorFlow.js is not:
# bench/js/ragged_js_bench.mjs installs it on its first run (npm ci --prefix bench/js).
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
