#!/usr/bin/env bash
# Opens a page in headless Chromium (Debian's chromium, which tools/setup.sh installs) with
# the network off and a fresh profile, as the test of `vmc show` and the docs' picture do.
#
#   tools/browser.sh dom PAGE[#FRAGMENT]                  the page's DOM after it ran
#   tools/browser.sh screenshot PAGE[#FRAGMENT] OUT.png [WIDTH,HEIGHT]
#
# PAGE is a file path. The page's console messages go to standard error (lines with
# "CONSOLE"). The network is off twice over: Chromium runs in a network namespace of its own
# when the kernel lets an ordinary process make one (unshare -rn), and it is told to resolve
# no name and to use a proxy that does not exist. Exit 3 when chromium is missing.
set -euo pipefail
mode="${1:?usage: browser.sh dom|screenshot PAGE[#FRAGMENT] [OUT.png [WIDTH,HEIGHT]]}"
page="${2:?usage: browser.sh dom|screenshot PAGE[#FRAGMENT] [OUT.png [WIDTH,HEIGHT]]}"
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
  echo "browser.sh: chromium is missing (tools/setup.sh installs it: apt-get install chromium)" >&2
  exit 3
fi
file="${page%%#*}"
fragment=""
[ "$file" != "$page" ] && fragment="#${page#*#}"
[ -r "$file" ] || { echo "browser.sh: cannot read $file" >&2; exit 2; }
url="file://$(cd "$(dirname "$file")" && pwd)/$(basename "$file")$fragment"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
       --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile"
       --proxy-server=127.0.0.1:9 "--host-resolver-rules=MAP * ~NOTFOUND"
       --enable-logging=stderr --v=0 --hide-scrollbars --virtual-time-budget=10000)
isolate=()
if unshare -rn true 2>/dev/null; then isolate=(unshare -rn); fi
case "$mode" in
  dom) exec "${isolate[@]}" "$chromium" "${flags[@]}" --dump-dom "$url" ;;
  screenshot)
    out="${3:?usage: browser.sh screenshot PAGE[#FRAGMENT] OUT.png [WIDTH,HEIGHT]}"
    out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
    "${isolate[@]}" "$chromium" "${flags[@]}" --window-size="${4:-1400,1000}" \
      --screenshot="$out" "$url" >/dev/null
    [ -s "$out" ] || { echo "browser.sh: no screenshot was written to $out" >&2; exit 1; }
    ;;
  *) echo "browser.sh: the mode is dom or screenshot, not \"$mode\"" >&2; exit 2 ;;
esac
