#!/usr/bin/env bash
# Regenerates the README's algorithm table (between "<!-- begin: vmc list --markdown -->"
# and its end line) from what `vmc list --markdown` prints; readme_test holds them equal.
#
#   tools/update_readme.sh [path to vmc]     (default: build/vmc)
set -euo pipefail
cd "$(dirname "$0")/.."
vmc="${1:-build/vmc}"
table="$(mktemp)"
trap 'rm -f "$table" README.md.new' EXIT
"$vmc" list --markdown > "$table"
awk -v table="$table" '
  $0 == "<!-- begin: vmc list --markdown -->" { print; while ((getline line < table) > 0) print line; skip = 1; next }
  $0 == "<!-- end: vmc list --markdown -->" { skip = 0 }
  !skip { print }
' README.md > README.md.new
mv README.md.new README.md
