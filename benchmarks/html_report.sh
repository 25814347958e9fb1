#!/usr/bin/env bash
# Size and render time of the HTML report, in headless Chromium (Debian's).
#   benchmarks/html_report.sh [BUILD_DIR] [--rows N] [--loads K] [--dumps NPU BENCH]
# Default input: a generated 4-rank x 2-step statistics job of N = 100,000 rows
# (scripts/gen-job-dumps.py); --dumps compares two existing dumps instead.
# Prints the report's size against its CSVs and, over K loads (median / max):
#   ready      the page's own mark: navigation start -> data parsed, heat-map, chart, tree and
#              table drawn, every handler attached (<html data-ready-ms>), i.e. interactive;
#   wall       `chromium --dump-dom` of the report minus that of an empty page (browser start-up);
# and, for the generated job, the click timings of scripts/check-html-report.js (switching run,
# module filter, chart click, two sorts). Run it on an idle machine (`uptime`).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build
rows=100000
loads=5
npu="" bench=""
while [ $# -gt 0 ]; do
  case "$1" in
    --rows) rows=$2; shift 2 ;;
    --loads) loads=$2; shift 2 ;;
    --dumps) npu=$2; bench=$3; shift 3 ;;
    *) build=$1; shift ;;
  esac
done
out=out/bench-html
rm -rf "$out" && mkdir -p "$out"
here=$(pwd)
browse() {
  local profile
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --disable-quic --user-data-dir="$profile" --window-size=1280,1000 "$@" 2>/dev/null
  rm -rf "$profile"
}
ms() { echo $(( $(date +%s%N) / 1000000 )); }

if [ -z "$npu" ]; then
  /usr/bin/python3 scripts/gen-job-dumps.py "$out/dumps" --rows "$rows" >/dev/null
  npu=$out/dumps/npu bench=$out/dumps/bench
fi
"$build"/bin/tensordiff compare "$npu" "$bench" -o "$out/job" --html --quiet >"$out/compare.txt" || [ $? -eq 1 ]
report=$out/job/report.html
html=$(stat -c %s "$report")
csv=$(cat "$out/job"/compare_result_*.csv | wc -c)
nrows=$(sed -n 's/^  rows: \([0-9]*\).*/\1/p' "$out/compare.txt")
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'); $(chromium --version 2>/dev/null)"
echo "input: $nrows rows ($npu)"
awk -v h="$html" -v c="$csv" 'BEGIN { printf "size: report.html %d bytes, CSVs %d bytes: %.3fx\n", h, c, h / c }'

echo '<!DOCTYPE html><html><body>empty</body></html>' >"$out/empty.html"
results=()
for _ in $(seq "$loads"); do
  t=$(ms); browse --dump-dom "file://$here/$out/empty.html" >/dev/null; empty=$(( $(ms) - t ))
  t=$(ms); browse --dump-dom "file://$here/$report" >"$out/dom.html"; wall=$(( $(ms) - t - empty ))
  ready=$(grep -o 'data-ready-ms="[0-9]*"' "$out/dom.html" | grep -o '[0-9]*' || echo -1)  # -1: a page without the mark
  results+=("$ready $wall")
done
printf '%s\n' "${results[@]}" | /usr/bin/python3 -c '
import statistics, sys
r = [tuple(map(int, l.split())) for l in sys.stdin if l.strip()]
for i, name in ((0, "ready (in page)"), (1, "wall - empty page")):
    v = [x[i] for x in r]
    if min(v) < 0:
        continue
    print(f"{name}: median {statistics.median(v):.0f} ms, max {max(v)} ms over {len(v)} loads")'

if [ -f "$out/dumps/expect.json" ]; then  # the click-through of the browser check, timed
  /usr/bin/python3 scripts/html-report-harness.py page "$report" "$out/dumps/expect.json" "$out/job/test.html"
  browse --dump-dom "file://$here/$out/job/test.html" >"$out/test-dom.html"
  /usr/bin/python3 scripts/html-report-harness.py results "$out/test-dom.html" --brief || true
fi
