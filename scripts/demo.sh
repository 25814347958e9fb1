#!/usr/bin/env bash
# The README's demo: installs what is missing, builds the `tensordiff` CLI and
# compares the bundled sample dumps (an NPU run whose outputs drift from one
# layer on), printing the summary with the first divergence and writing the
# CSV and the HTML report to out/demo/.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
scripts/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null  # as scripts/test.sh: one build serves both
cmake --build "$build" --target tensordiff_cli -j "$(nproc 2>/dev/null || echo 2)"
set +e
"$build"/bin/tensordiff compare examples/data/demo_dump/npu examples/data/demo_dump/bench -o out/demo --html
rc=$?
set -e
# Exit status 1 means "the comparison found errors" — the expected outcome here.
[ "$rc" -le 1 ] || exit "$rc"
echo
echo "HTML report: $(pwd)/out/demo/report.html"
