#!/usr/bin/env bash
# The kernel tests on AArch64 (NEON, SVE, SVE2 and the fixed-length SVE targets), cross-built
# with Debian's aarch64-linux-gnu-g++ and run under qemu-aarch64 at several SVE vector lengths.
# SVE vectors are sizeless (no struct members, no arrays): this keeps the Highway kernel honest
# about that, and checks run-time dispatch and exactness on every Arm target.
#
#   tests/cross/aarch64.sh [BUILD_DIR]        (default build-aarch64; installs what it needs)
#
# Header-only dependencies (Highway, xsimd, Eigen, GoogleTest's headers and sources) come from the
# host's Debian packages: they are the same files on every architecture.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${1:-build-aarch64}
scripts/install-deps.sh g++-aarch64-linux-gnu qemu-user libgtest-dev libgmock-dev libhwy-dev libxsimd-dev libeigen3-dev
mkdir -p "$out/include"
for d in hwy xsimd gtest gmock; do ln -sfn "/usr/include/$d" "$out/include/$d"; done
ln -sfn /usr/include/eigen3/Eigen "$out/include/Eigen"

cxx=(aarch64-linux-gnu-g++ -std=c++17 -O2 -pthread -I include -I "$out/include")
gt=/usr/src/googletest
if [ ! -f "$out/libgtest_all.a" ]; then
  "${cxx[@]}" -I "$gt/googletest" -I "$gt/googlemock" -c "$gt/googletest/src/gtest-all.cc" -o "$out/gtest-all.o" &
  "${cxx[@]}" -I "$gt/googletest" -I "$gt/googlemock" -c "$gt/googlemock/src/gmock-all.cc" -o "$out/gmock-all.o"
  "${cxx[@]}" -I "$gt/googletest" -I "$gt/googlemock" -c "$gt/googletest/src/gtest_main.cc" -o "$out/gtest_main.o"
  wait
  aarch64-linux-gnu-ar rcs "$out/libgtest_all.a" "$out/gtest-all.o" "$out/gmock-all.o" "$out/gtest_main.o"
fi

tests=(kernels_highway_adversarial_test kernels_highway_rel_test kernels_xsimd_test kernels_eigen_test)
defs=(-DTD_HAS_HIGHWAY=1 -DTD_HAS_XSIMD=1 -DTD_HAS_EIGEN=1 -DHWY_COMPILE_ALL_ATTAINABLE)  # every Arm target
build() {  # static, so qemu needs no AArch64 sysroot; glibc's getaddrinfo note is noise here
  "${cxx[@]}" "${defs[@]}" "tests/unit/$1.cpp" "$out/libgtest_all.a" -static -o "$out/$1" 2> >(grep -v -e getaddrinfo -e 'in function .*MakeConnection' >&2)
}
# The adversarial test is the longest compile: the other three follow one another beside it.
build "${tests[0]}" & (build "${tests[1]}" && build "${tests[2]}" && build "${tests[3]}"); wait

# qemu's SVE vector length picks the targets: 128 bits runs SVE2_128, SVE2, SVE and NEON; 256
# runs SVE_256 too; 2048 runs the generic SVE / SVE2 code at a width no fixed-length target
# covers (32 doubles a vector: block edges and tails move). Every run forces each target the
# emulated CPU supports (tests/unit/kernels_highway_test_util.hpp); each check computes its
# scalar / long-double reference once for all targets (AArch64's long double is software
# binary128, the costliest part under emulation). Under emulation this takes about 9 minutes of
# CPU (the slow per-length tests, float / int, stay on x86), so the runs go in two lanes of about
# equal length (~4.5 minutes), one per core; each lane's output is printed when both are done.
run() {
  echo "== qemu sve$1: ${*:2}"
  qemu-aarch64 -cpu "max,sve$1=on" "$out/$2" --gtest_brief=1 "${@:3}"
}
lane_a() {
  local rc=0
  run 256 kernels_highway_adversarial_test || rc=1
  run 2048 kernels_highway_adversarial_test || rc=1
  run 256 kernels_highway_rel_test || rc=1
  return "$rc"
}
lane_b() {
  local rc=0
  run 128 kernels_highway_adversarial_test || rc=1
  run 128 kernels_xsimd_test --gtest_filter='XsimdAdversarial.*' || rc=1
  run 128 kernels_eigen_test --gtest_filter='EigenAdversarial.*' || rc=1
  return "$rc"
}
failed=0
lane_a > "$out/lane_a.log" 2>&1 & a=$!
lane_b > "$out/lane_b.log" 2>&1 & b=$!
wait "$a" || failed=1
wait "$b" || failed=1
cat "$out/lane_a.log" "$out/lane_b.log"
exit "$failed"
