// Adversarial data for the kernel tests (Highway on every target, xsimd, Eigen): relative errors
// exactly on each threshold and one float / double step either side, maxima tied at several
// indices, zeros (and −0) in the bench side, denormals, exponent gaps where fl32 or fl64(a − b)
// rounds or overflows, NaN / ±inf at vector and block edges and in the tails, lengths 0 .. 3·block + 7, and
// every metric set. Each kernel is checked against kernels::Scalar (exact fields bit for bit) and
// the long-double sums of kernels_test_common.hpp.
#pragma once
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels_test_common.hpp"

namespace td_test {

/// The kernels' largest block (16 float lanes × 256 steps); lengths run to 3·block + 7.
inline constexpr std::size_t kAdvBlock = 4096;

/// Lengths: every one up to 70, then around vector multiples and block edges.
inline std::vector<std::size_t> adversarial_lengths() {
  std::vector<std::size_t> v;
  for (std::size_t n = 0; n <= 70; ++n) v.push_back(n);
  for (std::size_t m : {std::size_t{127}, std::size_t{128}, std::size_t{129}, std::size_t{255}, std::size_t{257}})
    v.push_back(m);
  for (std::size_t b : {kAdvBlock / 2, kAdvBlock, 2 * kAdvBlock, 3 * kAdvBlock})
    for (std::size_t d : {std::size_t{1}, std::size_t{0}}) v.push_back(b - d), v.push_back(b + d + (d ? 0 : 1));
  v.push_back(3 * kAdvBlock + 7);
  return v;
}

/// The KernelParams compare() passes for a pair: msprobe's float32 rule for 16/32-bit floats
/// (float eps, thresholds rounded to float), float64 otherwise. `raw_thresholds` keeps 1e-3 /
/// 5e-3 as doubles (the kernels must then compare a float quotient with a double threshold).
template <class TA, class TB> KernelParams adversarial_params(bool raw_thresholds = false) {
  auto narrow = [](auto t) {
    using T = decltype(t);
    return std::is_same_v<T, float> || std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>;
  };
  KernelParams k;
  k.rel_float32 = narrow(TA{}) && narrow(TB{});
  k.zero_bench_eps = k.rel_float32 ? 0x1p-23 : 0x1p-52;
  if (k.rel_float32 && !raw_thresholds)
    for (double& t : k.rel_thresholds) t = static_cast<float>(t);
  return k;
}

/// One step of T from x towards +inf (dir > 0) or −inf, through T's own rounding.
template <class T> double step(double x, int dir) {
  if constexpr (std::is_integral_v<T>) {
    return x + dir;
  } else if constexpr (std::is_same_v<T, double>) {
    return std::nextafter(x, dir > 0 ? HUGE_VAL : -HUGE_VAL);
  } else if constexpr (std::is_same_v<T, float>) {
    return std::nextafter(static_cast<float>(x), dir > 0 ? HUGE_VALF : -HUGE_VALF);
  } else {  // 16-bit: the next bit pattern (same sign, |x| > 0)
    T v(static_cast<float>(x));
    const bool up = (dir > 0) == !(v.bits & 0x8000);
    if (x == 0) return dir > 0 ? detail::to_double(T::from_bits(1)) : -detail::to_double(T::from_bits(1));
    v.bits = static_cast<std::uint16_t>(up ? v.bits + 1 : v.bits - 1);
    return detail::to_double(v);
  }
}

/// n adversarial pairs (see the file comment). `nonfinite` places NaN / ±inf (matching and
/// mismatching) at vector and block edges and in the last elements.
template <class TA, class TB> PairData<TA, TB> adversarial_pairs(std::size_t n, std::uint64_t seed, bool nonfinite) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> kind(0, 99), pow2(-8, 8), small(0, 7);
  constexpr bool fa = detail::is_float_storage_v<TA>, fb = detail::is_float_storage_v<TB>;
  constexpr bool wide = std::is_same_v<TA, double> || std::is_same_v<TB, double>;
  PairData<TA, TB> d;
  d.a.resize(n);
  d.b.resize(n);
  const double t[] = {1e-3, 5e-3};
  for (std::size_t i = 0; i < n; ++i) {
    const int k = kind(rng);
    const double s = fa && fb ? std::ldexp(1.0, pow2(rng)) : 1.0;
    const double sign = kind(rng) < 50 ? 1 : -1;
    double x, y;
    if (k < 30) {  // on a threshold: b = 1000 s or 200 s, a = b·(1 ± t), then ± one step of TA
      const int which = kind(rng) % 2;
      y = (which ? 200 : 1000) * s;
      x = y + (kind(rng) < 50 ? 1 : -1) * t[which] * y;
      const int ulps = small(rng) % 3 - 1;  // −1, 0, +1
      if (ulps) x = step<TA>(x, ulps);
    } else if (k < 38) {  // tied maxima: rel 3 and |a − b| 6 s at many indices
      y = 2 * s;
      x = 8 * s;
    } else if (k < 46) {  // zero (or −0) bench
      y = kind(rng) < 50 ? 0.0 : -0.0;
      x = fa ? std::ldexp(1.0, -20 - small(rng)) * (small(rng) + 1) : small(rng);
    } else if (k < 52 && fa && fb) {  // denormals of the narrower float type
      const int lo = std::is_same_v<TA, float16> || std::is_same_v<TB, float16> ? -24 : -149;
      y = std::ldexp(1.0, lo + small(rng));
      x = y * (1 + small(rng));
    } else if (k < 58 && fa && fb && seed % 3) {  // exponent gaps: fl32(a − b) or fl64(a − b) rounds
      // (every third seed has none, so whole blocks of 16-bit pairs have exact float differences)
      const bool f16 = std::is_same_v<TA, float16> || std::is_same_v<TB, float16>, mid = kind(rng) < 50;
      const int hi = wide ? 600 : f16 ? 15 : mid ? 20 : 100, lo = wide ? -600 : f16 ? -14 : mid ? -10 : -100;
      x = std::ldexp(1.0 + small(rng) / 8.0, hi);
      y = std::ldexp(1.0 + small(rng) / 8.0, lo);
      if (kind(rng) < 50) std::swap(x, y);
    } else if (k < 60 && fa && fb && !wide && std::is_same_v<TA, TB> && !std::is_same_v<TA, float16>) {
      // opposite signs near the float maximum: fl32(a − b) overflows, fl64(a − b) does not
      x = std::ldexp(1.0 + small(rng) / 8.0, 126 + small(rng) % 2);
      y = -std::ldexp(1.0 + small(rng) / 8.0, 126 + small(rng) % 2);
    } else if (k < 62) {
      x = y = 0;
    } else {  // ordinary small errors
      y = (10 + kind(rng)) * s;
      x = y * (1 + (kind(rng) - 50) * 1e-4);
    }
    d.a[i] = from_double<TA>(sign * x);
    d.b[i] = from_double<TB>(sign * y);
  }
  if (nonfinite && fa && fb && n > 0) {
    const double specials[] = {std::nan(""), HUGE_VAL, -HUGE_VAL};
    std::vector<std::size_t> at = {0, n - 1, n / 2};
    for (std::size_t e : {std::size_t{8}, std::size_t{16}, kAdvBlock / 2, kAdvBlock, 2 * kAdvBlock})
      for (std::size_t p : {e - 1, e}) at.push_back(p);
    if (n > 3) at.push_back(n - 3);
    int j = 0;
    for (std::size_t p : at) {
      if (p >= n) continue;
      const double v = specials[j % 3];
      d.a[p] = from_double<TA>(v);
      d.b[p] = from_double<TB>(j % 4 == 3 ? specials[(j + 1) % 3] : v);  // every 4th mismatches
      ++j;
    }
  }
  return d;
}

/// The fields of `got` that the metric set `m` asks for, against the scalar reference.
inline void expect_partial_parts(const Partial& got, const Partial& want, const RefSums& t, MetricSet m) {
  const detail::PassParts parts = detail::pass_parts(m);
  EXPECT_EQ(got.count, want.count);
  EXPECT_EQ(got.nonfinite_mismatch, want.nonfinite_mismatch);
  EXPECT_EQ(got.first_mismatch_index, want.first_mismatch_index);
  EXPECT_EQ(got.a.nan_count + got.a.pos_inf_count + got.a.neg_inf_count, want.a.nonfinite_count());
  if (parts.abs_max) {
    expect_same(got.max_abs_diff, want.max_abs_diff, "max_abs_diff");
    EXPECT_EQ(got.max_abs_index, want.max_abs_index);
  }
  if (parts.diff_sums) {
    expect_nonneg_sum(got.sum_sq_diff, (double)t.ssd, "sum_sq_diff");
    expect_nonneg_sum(got.sum_abs_diff, (double)t.sad, "sum_abs_diff");
  }
  if (parts.rel_max) {
    expect_same(got.max_rel, want.max_rel, "max_rel");
    EXPECT_EQ(got.max_rel_index, want.max_rel_index);
    EXPECT_EQ(got.rel_below[0], want.rel_below[0]);
    EXPECT_EQ(got.rel_below[1], want.rel_below[1]);
  }
  if (parts.rel_sum) expect_nonneg_sum(got.sum_rel, (double)t.srel, "sum_rel");
  if (parts.dot) {
    expect_signed_sum(got.dot, (double)t.dot, t.abs_dot, "dot");
    expect_nonneg_sum(got.a.sum_sq, (double)t.sq_a, "side a sum_sq");
    expect_nonneg_sum(got.b.sum_sq, (double)t.sq_b, "side b sum_sq");
  }
  if (parts.sides) {
    expect_side(got.a, want.a, t.sum_a, t.sq_a, t.abs_sum_a, "side a");
    expect_side(got.b, want.b, t.sum_b, t.sq_b, t.abs_sum_b, "side b");
  }
}

/// Runs a kernel check once: the backends without run-time targets. The Highway tests pass
/// td_test::EachHighwayTarget instead, so each reference below is computed once for all targets
/// (under qemu, with AArch64's software long double, the references cost more than the kernels).
struct RunOnce {
  template <class F> void operator()(F&& f) const { f(); }
};

/// Kernel against kernels::Scalar on adversarial data: every length, with and without NaN / inf,
/// the float32 rule's thresholds rounded and raw, and every lean metric set; `each` runs the
/// kernel's side once per target.
template <class Kernel, class TA, class TB, class EachTarget = RunOnce> void check_adversarial(EachTarget each = {}) {
  std::uint64_t seed = 7;
  for (std::size_t n : adversarial_lengths()) {
    for (bool nonfinite : {false, true}) {
      const auto d = adversarial_pairs<TA, TB>(n + 1, seed++, nonfinite);
      const TA* a = d.a.data() + 1;  // misaligned
      const TB* b = d.b.data() + 1;
      // The data twice, second copy first (below): every maximum ties across the two runs, and
      // the first copy's must still win (its index is smaller).
      std::vector<TA> a2(a, a + n);
      std::vector<TB> b2(b, b + n);
      a2.insert(a2.end(), a, a + n);
      b2.insert(b2.end(), b, b + n);
      // The full set (float32 thresholds rounded, then raw), then lean sets that pick each
      // compiled variant of the Highway pass and single parts of it.
      const MetricSet sets[] = {metric::all,         metric::all,      metric::assert_close,
                                metric::cosine | metric::max_abs,      metric::statistics,
                                metric::mean_rel,    metric::euclidean | metric::mean_abs,
                                metric::max_abs,     metric::cosine | metric::statistics};
      for (int variant = 0; variant < static_cast<int>(std::size(sets)); ++variant) {
        KernelParams k = adversarial_params<TA, TB>(variant == 1);
        k.metrics = sets[variant];
        if (variant != 0 && n > 200 && n % 2 == 0) continue;  // lean sets: the odd lengths suffice
        Partial want, want2;
        kernels::Scalar::accumulate(a, b, n, 11, k, want);
        const AbsTerms terms = abs_terms(a, b, n, k);
        AbsTerms terms2;
        if (variant == 0) {
          kernels::Scalar::accumulate(a2.data(), b2.data(), 2 * n, 11, k, want2);
          terms2 = abs_terms(a2.data(), b2.data(), 2 * n, k);
        }
        SCOPED_TRACE("n=" + std::to_string(n) + " nonfinite=" + std::to_string(nonfinite) +
                     " variant=" + std::to_string(variant));
        each([&] {
          Partial got;
          Kernel::accumulate(a, b, n, 11, k, got);
          expect_partial_parts(got, want, terms, k.metrics);
          if (variant != 0) return;
          // Split in two, later half first, into one Partial (ties, skipped rescans).
          const std::size_t h = n / 3;
          Partial split;
          Kernel::accumulate(a + h, b + h, n - h, 11 + h, k, split);
          Kernel::accumulate(a, b, h, 11, k, split);
          SCOPED_TRACE("split at " + std::to_string(h));
          expect_partial_parts(split, want, terms, k.metrics);
          Partial twice;
          Kernel::accumulate(a2.data() + n, b2.data() + n, n, 11 + n, k, twice);
          Kernel::accumulate(a2.data(), b2.data(), n, 11, k, twice);
          SCOPED_TRACE("twice");
          expect_partial_parts(twice, want2, terms2, k.metrics);
        });
        if (::testing::Test::HasFailure()) return;  // one report per type, not thousands
      }
    }
  }
  // The data hit the thresholds: both strict counts differ from "≤" counts somewhere.
  const auto d = adversarial_pairs<TA, TB>(20000, 99, false);
  const KernelParams k = adversarial_params<TA, TB>();
  std::size_t on[2] = {0, 0};
  for (std::size_t i = 0; i < d.a.size(); ++i) {
    const double r = td_ref::numpy_relative_error(detail::to_double(d.a[i]), detail::to_double(d.b[i]), k.rel_float32, k.zero_bench_eps);
    for (int j = 0; j < 2; ++j) on[j] += r == k.rel_thresholds[j];
  }
  if constexpr (sizeof(TA) > 1) {  // int8 holds neither 200 nor 1000
    if constexpr (!std::is_same_v<TA, bfloat16> && !std::is_same_v<TB, bfloat16>) {
      EXPECT_GT(on[0], 0u);
    }
    EXPECT_GT(on[1], 0u);
  }
}

/// Relative errors that are NaN for finite pairs: 0 / 0 where eps is 0 in the relative error's
/// type (zero_bench_eps 0, or 1e-50 under the float32 rule, where it rounds to 0), inf − inf where
/// eps is inf, and, under the float32 rule, float64 values beyond float's range. The reference skips
/// them in the maximum (numpy's `>`) and counts them below no threshold; a kernel whose vector lane
/// let a later NaN replace an earlier inf or larger error would report a later maximum. The data
/// are mostly NaN-making pairs, a few inf-making ones (b = 0, a ≠ 0) and ordinary errors.
template <class Kernel, class TA, class TB, class EachTarget = RunOnce> void check_nan_relative_errors(EachTarget each = {}) {
  constexpr bool wide = std::is_same_v<TA, double> || std::is_same_v<TB, double>;
  struct Case {
    double eps;
    bool f32, huge;
  };
  const bool natural = adversarial_params<TA, TB>().rel_float32;
  std::vector<Case> cases = {{0.0, natural, false}, {HUGE_VAL, natural, false}};
  if (natural) cases.push_back({1e-50, true, false});
  if (wide) cases.push_back({0x1p-23, true, true});
  std::uint64_t seed = 5;
  for (const Case& c : cases) {
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{129},
                          kAdvBlock - 1, kAdvBlock + 1, 3 * kAdvBlock + 7}) {
      std::mt19937_64 rng(seed++);
      std::uniform_int_distribution<int> kind(0, 99), small(1, 3);
      std::vector<TA> a(n + 1);
      std::vector<TB> b(n + 1);
      for (std::size_t i = 0; i <= n; ++i) {
        const int r = kind(rng);
        double x = 0, y = 0;                                       // 0 / 0 (r < 50)
        if (r >= 90) y = 10 + r, x = y * (1 + (r - 95) * 1e-3);   // ordinary
        else if (r >= 80) x = (r % 2 ? 1 : -1) * small(rng);      // a / 0: inf, or huge with eps
        else if (r >= 50 && c.huge) {                             // beyond float: (a − inf) / inf
          x = 3;
          y = (r % 2 ? 1 : -1) * 1e39;
          if (r % 3 == 0) std::swap(x, y);
          if (!std::is_same_v<TA, double>) x = 3;
          if (!std::is_same_v<TB, double>) y = 3;
        }
        a[i] = from_double<TA>(x);
        b[i] = from_double<TB>(y);
      }
      KernelParams k = adversarial_params<TA, TB>();
      k.zero_bench_eps = c.eps;
      k.rel_float32 = c.f32;
      if (c.f32)
        for (double& t : k.rel_thresholds) t = static_cast<float>(t);
      for (MetricSet m : {metric::all, metric::assert_close, metric::mean_rel}) {
        k.metrics = m;
        Partial want;
        kernels::Scalar::accumulate(a.data() + 1, b.data() + 1, n, 3, k, want);
        SCOPED_TRACE("n=" + std::to_string(n) + " eps=" + std::to_string(c.eps) + " f32=" + std::to_string(c.f32) +
                     " huge=" + std::to_string(c.huge) + " set=" + std::to_string(static_cast<unsigned>(m)));
        const detail::PassParts parts = detail::pass_parts(m);
        each([&] {
          Partial got;
          Kernel::accumulate(a.data() + 1, b.data() + 1, n, 3, k, got);
          if (parts.rel_max) {
            expect_same(got.max_rel, want.max_rel, "max_rel");
            EXPECT_EQ(got.max_rel_index, want.max_rel_index);
            EXPECT_EQ(got.rel_below[0], want.rel_below[0]);
            EXPECT_EQ(got.rel_below[1], want.rel_below[1]);
          }
          if (parts.rel_sum && std::isnan(want.sum_rel)) expect_same(got.sum_rel, want.sum_rel, "sum_rel");
          if (parts.rel_sum && !std::isnan(want.sum_rel)) expect_nonneg_sum(got.sum_rel, want.sum_rel, "sum_rel");
          if (parts.abs_max) {
            expect_same(got.max_abs_diff, want.max_abs_diff, "max_abs_diff");
            EXPECT_EQ(got.max_abs_index, want.max_abs_index);
          }
          EXPECT_EQ(got.count, want.count);
        });
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

}  // namespace td_test

/// The adversarial pairs of each backend test: X(NAME, TA, TB).
#define TD_FOR_EACH_ADVERSARIAL_PAIR(X) \
  X(F32F32, float, float)               \
  X(F16F16, float16, float16)           \
  X(BF16BF16, bfloat16, bfloat16)       \
  X(F32BF16, float, bfloat16)           \
  X(F16F32, float16, float)             \
  X(F64F64, double, double)             \
  X(F32F64, float, double)              \
  X(I32I32, std::int32_t, std::int32_t) \
  X(I16I16, std::int16_t, std::int16_t) \
  X(I8I8, std::int8_t, std::int8_t)

namespace td_test {
/// check_nan_relative_errors over every adversarial pair (one test per backend).
template <class Kernel, class EachTarget = RunOnce> void check_nan_relative_errors_all_pairs(EachTarget each = {}) {
#define TD_NAN_REL_CHECK(NAME, TA, TB) check_nan_relative_errors<Kernel, TA, TB>(each);
  TD_FOR_EACH_ADVERSARIAL_PAIR(TD_NAN_REL_CHECK)
#undef TD_NAN_REL_CHECK
}
}  // namespace td_test
