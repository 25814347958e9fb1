#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) and runs each for N seconds
# from the committed seed corpus plus the golden files. Any crash, leak or
# sanitizer report fails the script (its reproducer lands in $BUILD/artifacts).
#
#   tests/fuzz/run.sh [SECONDS=60] [TARGET...]
#   TD_FUZZ_BUILD_DIR=/tmp/fz tests/fuzz/run.sh 30 fuzz_zip
#   TD_FUZZ_SEED=7 tests/fuzz/run.sh    # reproducible run (CI sets a seed)
#   TD_FUZZ_JOBS=1 tests/fuzz/run.sh    # one target at a time (default: two)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(fuzz_npy_header fuzz_zip fuzz_safetensors fuzz_pickle fuzz_pt fuzz_dump_json fuzz_dump_paths)
build=${TD_FUZZ_BUILD_DIR:-$root/build-fuzz}
cxx=${CXX:-$(command -v clang++ || command -v clang++-14)}

cmake -S "$root" -B "$build" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTD_BUILD_FUZZERS=ON -DTD_BUILD_TESTS=OFF -DTD_BUILD_BENCHMARKS=OFF -DTD_BUILD_EXAMPLES=OFF -DTD_INSTALL=OFF >/dev/null
cmake --build "$build" --target "${targets[@]}" -j"${TD_FUZZ_JOBS:-2}"

seeds_for() {
  case "$1" in
    fuzz_npy_header) echo "$root/tests/fuzz/corpus/npy_header $root/tests/data/npy" ;;
    fuzz_zip) echo "$root/tests/fuzz/corpus/zip $root/tests/data/npz $root/tests/data/pt" ;;
    fuzz_safetensors) echo "$root/tests/fuzz/corpus/safetensors" ;;
    fuzz_pickle) echo "$root/tests/fuzz/corpus/pickle" ;;
    fuzz_dump_json) echo "$root/tests/fuzz/corpus/dump_json" ;;
    fuzz_dump_paths) echo "$root/tests/fuzz/corpus/dump_paths" ;;
    fuzz_pt) echo "$root/tests/fuzz/corpus/pt $root/tests/data/pt $root/tests/data/pt_hostile" ;;
  esac
}

# Every reproducer found so far seeds its target too (tests/fuzz/regressions/<name>/).
seeds_with_regressions() {
  local short=${1#fuzz_}
  seeds_for "$1"
  [ -d "$root/tests/fuzz/regressions/$short" ] && echo "$root/tests/fuzz/regressions/$short"
  return 0
}

# One target: its output (summary or failure) in $build/$t.out, its verdict in $build/$t.status.
fuzz_one() {
  local t=$1 work="$build/corpus-$1"  # grows while fuzzing; the committed corpus stays small
  mkdir -p "$work"
  echo "== $t for ${secs}s"
  local seed_arg=()
  [ -n "${TD_FUZZ_SEED:-}" ] && seed_arg=(-seed="$TD_FUZZ_SEED")
  # shellcheck disable=SC2046
  if ! "$build/bin/$t" "${seed_arg[@]}" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$build/artifacts/$t-" -print_final_stats=1 "$work" $(seeds_with_regressions "$t") \
      >"$build/$t.log" 2>&1; then
    echo "!! $t failed; see $build/$t.log and $build/artifacts/"
    tail -40 "$build/$t.log"
    echo failed >"$build/$t.status"
  else
    grep -E "^stat::number_of_executed_units|^stat::new_units_added|Done [0-9]+ runs" "$build/$t.log" || true
    echo passed >"$build/$t.status"
  fi
}

# TD_FUZZ_JOBS targets at a time (default 2, one per core of a CI machine); outputs in target order.
mkdir -p "$build/artifacts"
parallel=${TD_FUZZ_JOBS:-2}
for t in "${targets[@]}"; do
  rm -f "$build/$t.status"
  while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n || true; done
  fuzz_one "$t" >"$build/$t.out" 2>&1 &
done
wait
status=0
for t in "${targets[@]}"; do
  cat "$build/$t.out"
  [ "$(cat "$build/$t.status" 2>/dev/null)" = passed ] || status=1
done
exit $status
