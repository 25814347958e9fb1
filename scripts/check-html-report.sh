#!/usr/bin/env bash
# The HTML report in headless Chromium (Debian's, installed if missing):
#  1. demo: the README demo's report renders its parts; a screenshot is kept (CI artifact).
#  2. job: a generated 4-rank x 2-step, 100,000-row statistics compare (scripts/gen-job-dumps.py)
#     gives ONE report.html, no larger than its CSVs; scripts/check-html-report.js, appended to a
#     copy of the page, clicks through it as a user would: heat-map colours, cell -> table, module
#     -> table filter and chart span, chart -> row, sorting, filters.
#  3. network: Chromium's net log of that run holds no request from the page (a control page that
#     does request something shows the log would catch it).
# About 25 s with a RelWithDebInfo build on a 2-core machine.
#   scripts/check-html-report.sh [BUILD_DIR]        (TD_HTML_ROWS: job size, default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scripts/install-deps.sh chromium python3
out=out/ci-html
rm -rf "$out" && mkdir -p "$out"
here=$(pwd)
t0=$(date +%s%N)
lap() { echo "  [$(( ($(date +%s%N) - t0) / 1000000 )) ms] $*"; }
fail=0
ok() { echo "  ok   $1"; }
bad() { echo "  FAIL $1"; fail=1; }

browse() {  # browse CHROMIUM_ARGS... : one headless run with a fresh profile
  local profile rc=0
  profile=$(mktemp -d)
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --disable-quic --user-data-dir="$profile" --window-size=1280,1000 "$@" \
    2>>"$out/chromium.log" || rc=$?
  rm -rf "$profile"
  return $rc
}
compare() {  # compare NPU BENCH OUT_DIR: exit 0 or 1 (something failed) are both fine here
  local rc=0
  "$build"/bin/tensordiff compare "$1" "$2" -o "$3" --html --quiet >"$3.txt" || rc=$?
  [ "$rc" -le 1 ] || { cat "$3.txt"; exit 1; }
}
count() { grep -o -- "$2" "$1" | wc -l; }
expect_at_least() {  # expect_at_least NAME FILE PATTERN MIN
  local n; n=$(count "$2" "$3")
  if [ "$n" -ge "$4" ]; then ok "$1 ($n)"; else bad "$1: found $n, want >= $4"; fi
}

echo "== demo report"
compare examples/data/demo_dump/npu examples/data/demo_dump/bench "$out/demo"
browse --dump-dom "file://$here/$out/demo/report.html" >"$out/demo-dom.html"
dom="$out/demo-dom.html"
expect_at_least "chart"            "$dom" '<svg id="chart"' 1
expect_at_least "chart lines"      "$dom" 'class="line [a-z]*" d="M' 2
expect_at_least "first divergence" "$dom" 'id="first-divergence"' 1
expect_at_least "table rows"       "$dom" '<div class="r[ "]' 20
expect_at_least "module tree"      "$dom" 'role="treeitem"' 5
expect_at_least "status filter"    "$dom" 'id="status-filter"' 1
expect_at_least "rendered"         "$dom" 'data-ready-ms="[0-9]' 1
browse --window-size=1280,1500 --screenshot="$here/$out/report.png" "file://$here/$out/demo/report.html"
[ -s "$out/report.png" ] && ok "screenshot" || bad "screenshot missing"
lap "demo done"

echo "== job report (${TD_HTML_ROWS:-100000} rows, 4 ranks x 2 steps)"
/usr/bin/python3 scripts/gen-job-dumps.py "$out/job-dumps" --rows "${TD_HTML_ROWS:-100000}" --ranks 4 --steps 2 >/dev/null
lap "generated"
compare "$out/job-dumps/npu" "$out/job-dumps/bench" "$out/job"
lap "compared"
reports=$(find "$out/job" -name '*.html' | wc -l)
[ "$reports" -eq 1 ] && ok "one report for the whole job" || bad "$reports HTML files, want 1"
html_bytes=$(stat -c %s "$out/job/report.html")
csv_bytes=$(cat "$out/job"/compare_result_*.csv | wc -c)
ratio=$(awk -v h="$html_bytes" -v c="$csv_bytes" 'BEGIN { printf "%.3f", h / c }')
msg="report.html $html_bytes bytes, CSVs $csv_bytes bytes: ${ratio}x"
awk -v r="$ratio" 'BEGIN { exit !(r <= 1) }' && ok "$msg" || bad "$msg (want <= 1x)"

/usr/bin/python3 scripts/html-report-harness.py page "$out/job/report.html" "$out/job-dumps/expect.json" "$out/job/report-test.html"
browse --log-net-log="$here/$out/net-job.json" --dump-dom "file://$here/$out/job/report-test.html" >"$out/job-dom.html"
lap "rendered and clicked through in Chromium"
/usr/bin/python3 scripts/html-report-harness.py results "$out/job-dom.html" || fail=1

echo "== network"
cat >"$out/control.html" <<'EOF'
<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/td-control.png" alt=""></body></html>
EOF
browse --log-net-log="$here/$out/net-control.json" --dump-dom "file://$here/$out/control.html" >/dev/null
# Requests a page makes carry its origin as initiator; Chromium's own (update checks, time sync,
# despite the flags) carry none ("not an origin").
/usr/bin/python3 - "$out/net-control.json" "$out/net-job.json" <<'EOF' || fail=1
import json, sys
def page_requests(path):
    d = json.load(open(path))
    start = d["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return sorted({e["params"]["url"] for e in d["events"] if e["type"] == start and "url" in e.get("params", {})
                   and e["params"].get("initiator") != "not an origin"
                   and not e["params"]["url"].startswith(("file:", "data:", "blob:"))})
control, job = page_requests(sys.argv[1]), page_requests(sys.argv[2])
print(f"  {'ok  ' if control else 'FAIL'} the net log sees a page's request (control page: {control})")
print(f"  {'ok  ' if not job else 'FAIL'} the job report requests nothing ({job})")
sys.exit(0 if control and not job else 1)
EOF
lap "done"
echo "HTML report screenshot (CI artifact): $here/$out/report.png"
exit $fail
