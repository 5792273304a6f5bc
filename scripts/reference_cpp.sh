#!/usr/bin/env bash
# Builds the C++ API reference with Doxygen from the public headers (core/include/tracelab) into build/api/cpp/html
# and fails on any Doxygen warning, so every public class, function and member has a doc comment. Needs no build.
#   scripts/reference_cpp.sh      prints how many names are documented; on warnings prints them and exits 1
# The settings are in docs/Doxyfile; the warnings are also kept in build/api/doxygen-warnings.log.
#
# Doxygen checks the members of documented namespaces only, and leaves the free functions of an undocumented one
# out of the reference without a warning. So a second, quick pass extracts everything (no HTML) to list every
# namespace, and the check fails on any that lacks a doc comment.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v doxygen >/dev/null 2>&1; then
  echo "reference_cpp: doxygen not found (scripts/setup.sh test installs it)" >&2
  exit 2
fi

log=build/api/doxygen-warnings.log
tag=build/api/cpp/tracelab.tag
all_tag=build/api/all-names.tag
mkdir -p build/api/cpp
rm -f "$log" "$tag" "$all_tag"

status=0
doxygen docs/Doxyfile || status=$?

# Every namespace, documented or not (detail namespaces stay excluded by the Doxyfile's EXCLUDE_SYMBOLS).
{ cat docs/Doxyfile
  printf '%s\n' 'EXTRACT_ALL = YES' 'GENERATE_HTML = NO' 'WARN_IF_UNDOCUMENTED = NO' 'WARN_AS_ERROR = NO' \
    'WARN_LOGFILE =' 'QUIET = YES' "OUTPUT_DIRECTORY = build/api" "GENERATE_TAGFILE = $all_tag"
} | doxygen - >/dev/null 2>&1 || true

namespaces() {  # the names of the namespace compounds in a tag file
  [ -s "$1" ] || return 0
  awk '/<compound kind="namespace"/ { getline; sub(/.*<name>/, ""); sub(/<\/name>.*/, ""); print }' "$1" | sort
}
undocumented=$(comm -23 <(namespaces "$all_tag") <(namespaces "$tag"))

warnings=0
[ -s "$log" ] && warnings=$(grep -c ': \(warning\|error\): ' "$log" || true)
[ -s "$all_tag" ] || undocumented="(the namespace pass failed: no $all_tag)"
if [ "$status" -ne 0 ] || [ "$warnings" -ne 0 ] || [ -n "$undocumented" ] || [ ! -s "$tag" ]; then
  [ -s "$log" ] && sed "s|^$PWD/||" "$log" >&2
  for name in $undocumented; do
    echo "namespace $name is not documented (its free functions are left out of the reference)" >&2
  done
  echo "reference_cpp: FAILED, $warnings Doxygen warnings (doxygen exit $status)," \
    "$(printf '%s' "$undocumented" | grep -c . || true) undocumented namespaces; log in $log" >&2
  exit 1
fi

# The tag file lists every documented compound and member.
compounds=$(grep -c '<compound kind="\(class\|struct\|union\|namespace\)"' "$tag" || true)
members=$(grep -c '<member kind=' "$tag" || true)
echo "reference_cpp: $compounds classes/structs/namespaces and $members members documented, 0 warnings;" \
  "HTML in build/api/cpp/html/index.html"
