#!/usr/bin/env bash
# Renders the demo comparison's HTML report in headless Chromium (installed
# from Debian if missing), checks the DOM for the chart, the table rows, the
# first-divergence marker and the module tree, and saves a screenshot.
#   scripts/check-html-report.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scripts/install-deps.sh chromium
out=out/ci-html
rm -rf "$out" && mkdir -p "$out"
set +e
"$build"/bin/tensordiff compare examples/data/demo_dump/npu examples/data/demo_dump/bench -o "$out" --html --quiet >"$out/compare.txt"
rc=$?
set -e
[ "$rc" -le 1 ] || { cat "$out/compare.txt"; exit 1; }
report="$(pwd)/$out/report.html"
profile=$(mktemp -d)
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
       --disable-sync --no-first-run --disable-quic --user-data-dir="$profile")
chromium "${flags[@]}" --dump-dom "file://$report" >"$out/dom.html" 2>"$out/chromium.log"
chromium "${flags[@]}" --window-size=1280,1400 --screenshot="$(pwd)/$out/report.png" "file://$report" 2>>"$out/chromium.log"
rm -rf "$profile"
fail=0
check() {  # check NAME PATTERN MIN_COUNT
  local n; n=$(grep -o -- "$2" "$out/dom.html" | wc -l)
  if [ "$n" -ge "$3" ]; then echo "  ok   $1 ($n)"; else echo "  FAIL $1: found $n, want >= $3"; fail=1; fi
}
rows=$(grep -o '<tr class="data' "$out/report.html" | wc -l)
check "chart"                '<svg id="chart"' 1
check "chart lines"          '<polyline' 2
check "points linked to rows" 'href="#row-' "$rows"
check "table rows"           '<tr class="data' "$rows"
check "first divergence"     'id="first-divergence"' 1
check "status filter"        'id="status-filter"' 1
check "module tree"          '<ul class="tree" id="modules">' 1
[ -s "$out/report.png" ] || { echo "  FAIL screenshot missing"; fail=1; }
echo "HTML report screenshot (CI artifact): $(pwd)/$out/report.png"
exit $fail
