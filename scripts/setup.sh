#!/usr/bin/env bash
# Installs whatever Tracelab needs on Debian and is missing; safe to run again (it then does nothing).
#   scripts/setup.sh          build + serve needs: compilers, Emscripten, Eigen, nlohmann/json, doctest, Node, npm packages
#   scripts/setup.sh test     the same plus what the tests need: Chromium (browser tests), clang and its
#                             libFuzzer runtime (the asan preset; libclang-rt-14-dev is Debian 12's), protoc and
#                             Debian's python3-protobuf (the TensorBoard event-file checker, tests/tensorboard/),
#                             Doxygen (the C++ API reference, scripts/reference_cpp.sh), and bench/js's npm packages
#                             (TensorFlow.js: the oracle of tests/js/tfjs_diff.test.mjs, the source of docs/tfjs-compat.md)
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
# tests' (playwright-core, typescript), the JS API reference's (typedoc), AutoGraph's source map writer
# (source-map-js). Installed for serving too: the page is built from them. TensorFlow.js (bench/js's packages) is for the tests and the benchmarks only: installed with
# `test` (the differential tests against it and the compatibility table, scripts/tfjs_compat.mjs), never for serving.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ "${1:-}" = test ] && { [ ! -f bench/js/node_modules/.package-lock.json ] ||
                            [ bench/js/package-lock.json -nt bench/js/node_modules/.package-lock.json ]; }; then
  echo "setup: installing bench/js's npm packages (npm ci --prefix bench/js)"
  npm ci --prefix bench/js --no-audit --no-fund --loglevel=error
fi
