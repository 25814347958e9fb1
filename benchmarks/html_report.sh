#!/usr/bin/env bash
# Size and render time of the HTML report, in headless Chromium (Debian's).
#   benchmarks/html_report.sh [BUILD_DIR] [--rows N] [--loads K] [--dumps NPU BENCH | --transformer L]
# Default input: a generated 4-rank x 2-step statistics job of N = 100,000 rows
# (scripts/gen-job-dumps.py); --dumps compares two existing dumps instead; --transformer L dumps
# the tiny transformer of tests/data/generate_dumps.py with L layers (level mix, tensor mode,
# forward and backward, NPU side perturbed from layers.5.mlp; L = 14 gives 2,795 rows; needs torch).
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
    --transformer) layers=$2; shift 2 ;;
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

if [ -n "${layers:-}" ]; then
  /usr/bin/python3 - "$out/transformer" "$layers" <<'EOF'
import sys
from pathlib import Path
sys.path.insert(0, "tests/data")
import torch
import generate_dumps as g
g.run_pair(Path(sys.argv[1]), "/home/user/msprobe_dump/bench", task="tensor", level="mix", dtype_n=torch.float32,
           dtype_b=torch.float32, var_n=g.Variant(noise_module="layers.5.mlp", noise_rel=1e-2), var_b=g.Variant(),
           n_layers=int(sys.argv[2]), ranks=(0,))
EOF
  npu=$out/transformer/npu bench=$out/transformer/bench
elif [ -z "$npu" ]; then
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
