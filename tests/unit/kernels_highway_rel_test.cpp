// Highway kernel: relative errors that sit exactly on (or next to) a
// threshold, ties and ramps of the maximum relative error, subnormal and huge
// bench values — the cases where a kernel's relative error, its maximum (and
// the index found by the block rescan) and its threshold counts must match the
// exact division bit for bit. Every compiled target against kernels::Scalar
// and against an independent double loop for the exact fields.
#include <cmath>
#include <random>

#include "kernels_highway_test_util.hpp"

namespace {
using namespace tensordiff;
using td_test::for_each_highway_target;

/// Pairs whose relative error lands on the thresholds: b = c·2^s with c·t
/// ∈ {1, …} so |a−b|/|b| rounds to exactly t (or one float step beside it),
/// plus ties of a large relative error, an increasing ramp, subnormal and
/// huge |b| (floats only) and zeros.
template <class T> td_test::PairData<T, T> adversarial(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> kind(0, 99), pow2(-6, 6);
  constexpr bool is_float = detail::is_float_storage_v<T>;
  td_test::PairData<T, T> d;
  d.a.resize(n);
  d.b.resize(n);
  double ramp = 0.5;
  for (std::size_t i = 0; i < n; ++i) {
    const int k = kind(rng);
    const double s = is_float ? std::ldexp(1.0, pow2(rng)) : 1.0;
    const double sign = kind(rng) < 50 ? 1 : -1;
    double x, y;
    if (k < 25) {  // rel == 1e-3 exactly: b = 1000 s, a = b ± s
      y = 1000 * s;
      x = y + (kind(rng) < 50 ? s : -s);
    } else if (k < 45) {  // rel == 5e-3 exactly: b = 200 s
      y = 200 * s;
      x = y + (kind(rng) < 50 ? s : -s);
    } else if (k < 55) {  // a tie of the largest relative error (3)
      y = 2 * s;
      x = 8 * s;
    } else if (k < 60) {  // an increasing ramp of relative errors
      y = 64;
      ramp += 1.0 / 64;
      x = std::min(64 * (1 + ramp), 120.0);
    } else if (k < 65 && is_float) {  // subnormal |b| (float: 2^-149 .. 2^-127)
      y = std::ldexp(1.0, -149 + kind(rng) % 22);
      x = 2 * y;
    } else if (k < 70 && is_float && std::is_same_v<T, float>) {  // |b| ≥ 2^125
      y = std::ldexp(1.5, 125 + kind(rng) % 2);
      x = y / 2;
    } else if (k < 75) {  // zero bench
      y = 0;
      x = is_float ? std::ldexp(1.0, -33) : 1;
    } else if (k < 80) {
      x = y = 0;
    } else {  // small relative error
      y = 100 * s;
      x = y + s / 4 * (is_float ? 1 : 0);
    }
    d.a[i] = td_test::from_double<T>(sign * x);
    d.b[i] = td_test::from_double<T>(sign * y);
  }
  return d;
}

template <class T> void check(std::size_t n, std::uint64_t seed, const KernelParams& k) {
  const auto d = adversarial<T>(n, seed);
  Partial got, want;
  kernels::Highway::accumulate(d.a.data(), d.b.data(), n, 7, k, got);
  kernels::Scalar::accumulate(d.a.data(), d.b.data(), n, 7, k, want);
  td_test::expect_partial(got, want, td_test::abs_terms(d.a.data(), d.b.data(), n, k));
  // Independent loop for the exact relative-error fields.
  std::uint64_t below0 = 0, below1 = 0, max_i = no_index;
  double max_rel = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = detail::to_double(d.a[i]), y = detail::to_double(d.b[i]);
    const double rel = td_ref::numpy_relative_error(x, y, k.rel_float32, k.zero_bench_eps);
    below0 += rel < k.rel_thresholds[0];
    below1 += rel < k.rel_thresholds[1];
    if (rel > max_rel) max_rel = rel, max_i = 7 + i;
  }
  EXPECT_EQ(got.rel_below[0], below0);
  EXPECT_EQ(got.rel_below[1], below1);
  EXPECT_EQ(got.max_rel, max_rel);
  EXPECT_EQ(got.max_rel_index, max_i);
  // The data straddles the thresholds (bf16 cannot hold 1000·s ± s: only the
  // custom thresholds hit its values).
  if (n >= 1000 && (!std::is_same_v<T, bfloat16> || k.rel_thresholds[0] == 0.75)) {
    EXPECT_GT(below1, below0);
  }
}

template <class T> void check_all() {
  KernelParams dflt, f64_eps, custom, in_f64;
  f64_eps.zero_bench_eps = 2.220446049250313e-16;
  in_f64.rel_float32 = false;  // the float64 relative error
  in_f64.zero_bench_eps = 2.220446049250313e-16;
  custom.rel_thresholds[0] = 0.75;  // a step of the ramp
  custom.rel_thresholds[1] = 3;     // the tie value
  std::uint64_t seed = 1;
  for (std::size_t n : {std::size_t{5}, std::size_t{64}, std::size_t{1000}, std::size_t{100003}}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check<T>(n, seed++, dflt);
    check<T>(n, seed++, f64_eps);
    check<T>(n, seed++, custom);
    check<T>(n, seed++, in_f64);
  }
}

TEST(HighwayRelError, F32) { for_each_highway_target([] { check_all<float>(); }); }
TEST(HighwayRelError, BF16) { for_each_highway_target([] { check_all<bfloat16>(); }); }
TEST(HighwayRelError, F16) { for_each_highway_target([] { check_all<float16>(); }); }
TEST(HighwayRelError, Int16) { for_each_highway_target([] { check_all<std::int16_t>(); }); }

}  // namespace
