#!/usr/bin/env bash
# Writes the algorithm table of docs/algorithms.md again (the lines between
# "<!-- begin: vmc list --markdown -->" and its end line) from what `vmc list --markdown`
# prints, after the registry changed; tests/tools/readme_test.cpp holds the two equal.
#
#   tools/update_algorithm_table.sh [path to vmc]     (default: build/vmc)
set -euo pipefail
cd "$(dirname "$0")/.."
vmc="${1:-build/vmc}"
page=docs/algorithms.md
table="$(mktemp)"
trap 'rm -f "$table" "$page.new"' EXIT
"$vmc" list --markdown > "$table"
grep -qx -- '<!-- begin: vmc list --markdown -->' "$page" || {
  echo "update_algorithm_table.sh: $page has no line <!-- begin: vmc list --markdown -->" >&2
  exit 1
}
awk -v table="$table" '
  $0 == "<!-- begin: vmc list --markdown -->" { print; while ((getline line < table) > 0) print line; skip = 1; next }
  $0 == "<!-- end: vmc list --markdown -->" { skip = 0 }
  !skip { print }
' "$page" > "$page.new"
mv "$page.new" "$page"
