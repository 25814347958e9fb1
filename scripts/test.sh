#!/usr/bin/env bash
# Installs what is missing, builds tensordiff with its tests and runs them.
#   scripts/test.sh [BUILD_DIR] [extra cmake args...]
# TD_CTEST_ARGS adds ctest arguments (e.g. "-E consumer" to skip the slow
# package-consumer tests).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
scripts/install-deps.sh
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTD_BUILD_TESTS=ON "$@" >/dev/null
cmake --build "$build" -j "$jobs"
# shellcheck disable=SC2086
ctest --test-dir "$build" -j "$jobs" --output-on-failure ${TD_CTEST_ARGS:-}
