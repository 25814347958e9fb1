// detail::RatioCut and FixedPointCut (kernels/detail/ratio_cut.hpp): p·d < c·q, and
// p ≤ ⌊⌊q·m / 2^16⌋ / 2^s⌋ where a fixed-point cut exists, must say exactly what the reference's own
// division says, fl64(p / q) < t, for every ratio of order n. Checked for each
// denominator q at every numerator near the switch (where the two could disagree) and at 0 and
// q, and on random ratios; thresholds from msprobe's, through exact ratios and their float64
// neighbours, to the extremes of (0, 1].
#include <tensordiff/kernels/detail/ratio_cut.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

using tensordiff::detail::FixedPointCut;
using tensordiff::detail::RatioCut;

bool reference_below(std::uint64_t p, std::uint64_t q, double t) {
  return static_cast<double>(p) / static_cast<double>(q) < t;
}

void check_cut(double t, std::uint64_t n) {
  SCOPED_TRACE("t=" + std::to_string(t) + " (" + std::to_string(std::ilogb(t)) + ") n=" + std::to_string(n));
  const RatioCut cut(t, n);
  ASSERT_LT(cut.c, cut.d);
  ASSERT_LE(cut.d, 2 * n - 1 + (n == 1));  // order 1: 0/1 and 1/1 give 1/2
  const FixedPointCut fixed(cut, n <= 255 ? 0 : 15);  // as the kernel asks
  if (n <= 255) {
    ASSERT_TRUE(fixed.ok && fixed.shift == 0);
  }
  if (fixed.ok) {
    ASSERT_LT(fixed.m, 65536u);
  }
  const auto check = [&](std::uint64_t p, std::uint64_t q) {
    const bool want = reference_below(p, q, t), got = p * cut.d < cut.c * q;
    ASSERT_EQ(got, want) << p << "/" << q << " cut " << cut.c << "/" << cut.d;
    if (fixed.ok) {
      ASSERT_EQ(p <= ((q * fixed.m) >> 16) >> fixed.shift, want) << p << "/" << q << " fixed " << fixed.m << " >> " << fixed.shift;
    }
  };
  for (std::uint64_t q = 1; q <= n; ++q) {
    const auto centre = static_cast<std::int64_t>(std::floor(t * static_cast<double>(q)));
    for (std::int64_t p = centre - 2; p <= centre + 2; ++p) {
      if (p >= 0) check(static_cast<std::uint64_t>(p), q);
    }
    check(0, q);
    check(q, q);
    check(2 * q + 1, q);
    if (::testing::Test::HasFatalFailure()) return;
  }
  std::mt19937_64 rng(n * 31 + static_cast<std::uint64_t>(t * 1e6));
  std::uniform_int_distribution<std::uint64_t> den(1, n), num(0, 65535);
  for (int i = 0; i < 20000; ++i) {
    check(num(rng) % (n + 1), den(rng));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

std::vector<double> thresholds() {
  std::vector<double> ts = {1e-3, 5e-3, 0.25, 1.0 / 3, 0.5, 1.0, 0x1p-20, 0x1p-21, 1e-300, 5e-324, 0.1, 0.999};
  for (double exact : {1.0 / 1000, 1.0 / 200, 7.0 / 32768, 1.0 / 128, 1.0 / 255, 3.0 / 7}) {
    ts.push_back(std::nextafter(exact, 0.0));
    ts.push_back(std::nextafter(exact, 1.0));
  }
  std::mt19937_64 rng(20261128);
  std::uniform_real_distribution<double> any(0.0, 1.0);
  for (int i = 0; i < 8; ++i) ts.push_back(any(rng));
  return ts;
}

TEST(RatioCut, AgreesWithTheDivisionOnEveryOrderUsed) {
  for (std::uint64_t n : {1, 2, 3, 127, 128, 255, 32768}) {
    for (double t : thresholds()) {
      if (t > 0) check_cut(t, n);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

TEST(RatioCut, ExactRatiosOnMsprobesThresholds) {
  // 1/1000 rounds to fl64(0.001), so it is not below it; 1/1001 is.
  const RatioCut cut(1e-3, 32768);
  EXPECT_FALSE(1 * cut.d < cut.c * 1000);
  EXPECT_TRUE(1 * cut.d < cut.c * 1001);
  EXPECT_FALSE(reference_below(1, 1000, 1e-3));
  const RatioCut cut5(5e-3, 32768);
  EXPECT_EQ(5 * cut5.d < cut5.c * 1000, reference_below(5, 1000, 5e-3));
}

}  // namespace

namespace {

TEST(FixedPointCut, ExistsForMsprobesThresholdsOnInt16AndNotForEveryThreshold) {
  // The kernel's fast count needs it for 0.001 and 0.005 over int16's denominators; thresholds
  // whose neighbours lie closer than 2^-31 have none (the kernel then uses the ratio cut).
  for (double t : {1e-3, 5e-3}) EXPECT_TRUE(FixedPointCut(RatioCut(t, 32768), 15).ok) << t;
  int without = 0;
  for (double t : thresholds()) without += !FixedPointCut(RatioCut(t, 32768), 15).ok;
  EXPECT_GT(without, 0);
}

}  // namespace
