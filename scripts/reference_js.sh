#!/usr/bin/env bash
# Builds the JavaScript API reference with TypeDoc from the package's declarations (wasm/tracelab.d.mts,
# wasm/autograph.d.mts and wasm/tfjs.d.mts: typedoc.json's entry points) into build/api/js and fails on any TypeDoc warning: with validation.notDocumented on,
# every exported name and every member of an exported interface or class needs a doc comment. Needs no build.
#   scripts/reference_js.sh      prints how many names are documented; on warnings prints them and exits 1
# The settings are in typedoc.json; TypeDoc comes from the root package (npm ci, as scripts/setup.sh runs it).
set -euo pipefail
cd "$(dirname "$0")/.."

typedoc=node_modules/.bin/typedoc
[ -x "$typedoc" ] || { echo "reference_js: $typedoc not found (run npm ci, as scripts/setup.sh does)" >&2; exit 2; }

log=build/api/typedoc-warnings.log
json=build/api/js.json
mkdir -p build/api
rm -rf build/api/js "$json"

# typedoc.json has treatWarningsAsErrors: a warning fails the run and writes nothing. --json also writes the
# reflections, which the count below reads.
status=0
"$typedoc" --options typedoc.json --out build/api/js --json "$json" --logLevel Warn >"$log" 2>&1 || status=$?
sed -i 's/\x1b\[[0-9;]*m//g' "$log"
warnings=$(grep '^\[warning\]' "$log" | grep -vc '^\[warning\] Found ' || true)
errors=$(grep -c '^\[error\]' "$log" || true)
if [ "$status" -ne 0 ] || [ "$warnings" -ne 0 ] || [ "$errors" -ne 0 ] || [ ! -s build/api/js/index.html ]; then
  sed "s|$PWD/||g" "$log" >&2
  echo "reference_js: FAILED, $warnings TypeDoc warnings, $errors errors (typedoc exit $status); log in $log" >&2
  exit 1
fi

# The modules' children are the exported names; the members are every property, method, accessor and constructor
# under them, in classes, interfaces and type literals.
node --input-type=module - "$json" <<'NODE'
import { readFileSync } from 'node:fs';
const project = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const MEMBER_KINDS = new Set([512, 1024, 2048, 262144]);   // Constructor, Property, Method, Accessor
const modules = project.children ?? [];
const names = modules.reduce((count, module) => count + (module.children ?? []).length, 0);
let members = 0;
const walk = (value) => {   // every reflection, wherever it sits (classes, interfaces, type literals)
  if (Array.isArray(value)) return value.forEach(walk);
  if (value === null || typeof value !== 'object') return;
  if (typeof value.id === 'number' && MEMBER_KINDS.has(value.kind)) members += 1;
  Object.values(value).forEach(walk);
};
walk(modules);
console.log(`reference_js: ${names} exported names (${modules.map((m) => m.name).join(', ')}) and ${members} members ` +
            'documented, 0 warnings; HTML in build/api/js/index.html');
NODE
