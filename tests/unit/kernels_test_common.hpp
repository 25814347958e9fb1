// Shared helpers of the kernel tests: seeded heavy-tailed data with zeros and
// non-finite values, and the check of a kernel's Partial against
// kernels::Scalar (exact fields exact, sums within 1e-12 of an independent
// long-double bound).
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "relative_error_reference.hpp"
#include "tensordiff/kernels/scalar.hpp"
#include "tensordiff/metrics/detail/pairing.hpp"

namespace td_test {
using namespace tensordiff;

template <class T> T from_double(double x) {
  if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) return T(static_cast<float>(x));
  else if constexpr (std::is_same_v<T, bool8>) return bool8{static_cast<std::uint8_t>(x != 0)};
  else if constexpr (std::is_integral_v<T>) {
    const double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    const double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (!(x >= lo)) return std::numeric_limits<T>::lowest();
    if (x >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(x);
  } else return static_cast<T>(x);
}

/// Heavy-tailed values: normal × 10^U(-3, 3) (integers: scaled to their range).
template <class T> double draw(std::mt19937_64& rng) {
  std::normal_distribution<double> nd;
  std::uniform_real_distribution<double> ud(-3, 3);
  double x = nd(rng) * std::pow(10.0, ud(rng));
  if constexpr (std::is_integral_v<T>) {
    const double span = std::is_same_v<T, std::int64_t> || std::is_same_v<T, std::uint64_t>
                            ? 9.2e18 : static_cast<double>(std::numeric_limits<T>::max());
    x = std::round(x * span / 5000.0);
    if (std::is_unsigned_v<T>) x = std::fabs(x);
  }
  return x;
}

template <class TA, class TB> struct PairData {
  std::vector<TA> a;
  std::vector<TB> b;
};

/// n pairs: b is a perturbed copy of a (so many ties and small errors), with
/// zeros in b, equal values, and — for floats when `nonfinite` — nan/inf at
/// matching and at mismatching positions.
template <class TA, class TB> PairData<TA, TB> make_pairs(std::size_t n, std::uint64_t seed, bool nonfinite) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> kind(0, 99);
  PairData<TA, TB> d;
  d.a.resize(n);
  d.b.resize(n);
  constexpr bool fa = detail::is_float_storage_v<TA>, fb = detail::is_float_storage_v<TB>;
  for (std::size_t i = 0; i < n; ++i) {
    double x = draw<TA>(rng);
    double y = x * (1 + 1e-3 * std::normal_distribution<double>()(rng));
    const int k = kind(rng);
    if (k < 5) y = 0;                   // zero bench
    else if (k < 10) y = x;             // exact match
    else if (k < 13) y = draw<TB>(rng); // unrelated
    else if (k < 15) x = y = 0;
    d.a[i] = from_double<TA>(x);
    d.b[i] = from_double<TB>(y);
    if (nonfinite && fa && fb && kind(rng) < 2) {
      const double specials[] = {std::nan(""), std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity()};
      const int s = kind(rng) % 3;
      d.a[i] = from_double<TA>(specials[s]);
      if (kind(rng) < 60) d.b[i] = from_double<TB>(specials[s]);          // matching
      else if (kind(rng) < 50) d.b[i] = from_double<TB>(specials[(s + 1) % 3]);  // other kind
    }
  }
  return d;
}

/// Independent reference for the sums: the per-element terms of
/// detail::accumulate_pair (computed in double, as every kernel must), summed
/// in long double, with Σ|term| for the signed sums' tolerance.
struct RefSums {
  long double dot = 0, ssd = 0, sad = 0, srel = 0, sum_a = 0, sq_a = 0, sum_b = 0, sq_b = 0;
  long double abs_dot = 0, abs_sum_a = 0, abs_sum_b = 0;
};
using AbsTerms = RefSums;

template <class TA, class TB> RefSums abs_terms(const TA* a, const TB* b, std::size_t n, const KernelParams& k = {}) {
  RefSums t;
  for (std::size_t i = 0; i < n; ++i) {
    double x = detail::to_double(a[i]), y = detail::to_double(b[i]);
    if (std::isfinite(x)) t.sum_a += x, t.sq_a += (long double)x * x, t.abs_sum_a += std::fabs(x);
    if (std::isfinite(y)) t.sum_b += y, t.sq_b += (long double)y * y, t.abs_sum_b += std::fabs(y);
    if (!std::isfinite(x) || !std::isfinite(y)) continue;  // (0, 0) in the error metrics
    double ad;
    if constexpr (detail::is_integral_storage_v<TA> && detail::is_integral_storage_v<TB>)
      ad = static_cast<double>(detail::exact_abs_diff(a[i], b[i]));
    else
      ad = std::fabs(x - y);
    const long double diff = (long double)x - y;
    t.dot += (long double)x * y;
    t.abs_dot += std::fabs((long double)x * y);
    t.ssd += diff * diff;
    t.sad += ad;
    t.srel += td_ref::numpy_relative_error(x, y, k.rel_float32, k.zero_bench_eps);
  }
  return t;
}

inline void expect_nonneg_sum(double got, double want, const char* what) {
  if (got == want) return;  // also ±inf (a sum of huge terms)
  EXPECT_LE(std::fabs(got - want), 1e-12 * std::fabs(want) + 1e-300) << what << " got " << got << " want " << want;
}
inline void expect_signed_sum(double got, double want, long double abs_terms, const char* what) {
  if (got == want) return;  // also ±inf
  EXPECT_LE(std::fabs(got - want), 1e-12 * static_cast<double>(abs_terms) + 1e-300)
      << what << " got " << got << " want " << want;
}
inline void expect_same(double got, double want, const char* what) {
  if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << what;
  else EXPECT_EQ(got, want) << what;
}

inline void expect_side(const SideStats& g, const SideStats& w, long double sum, long double sq, long double abs_sum,
                        const char* side) {
  SCOPED_TRACE(side);
  EXPECT_EQ(g.nan_count, w.nan_count);
  EXPECT_EQ(g.pos_inf_count, w.pos_inf_count);
  EXPECT_EQ(g.neg_inf_count, w.neg_inf_count);
  expect_same(g.finite_min, w.finite_min, "finite_min");
  expect_same(g.finite_max, w.finite_max, "finite_max");
  expect_signed_sum(g.sum, (double)sum, abs_sum, "sum");
  // Σx² of huge int64 values exceeds double's exact range the same way in
  // every kernel; the reference is the exact square sum.
  expect_nonneg_sum(g.sum_sq, (double)sq, "sum_sq");
}

/// Every field of `got` against the scalar reference `want` (exact fields)
/// and the long-double reference `t` (sums).
inline void expect_partial(const Partial& got, const Partial& want, const RefSums& t) {
  EXPECT_EQ(got.count, want.count);
  expect_signed_sum(got.dot, (double)t.dot, t.abs_dot, "dot");
  expect_nonneg_sum(got.sum_sq_diff, (double)t.ssd, "sum_sq_diff");
  expect_nonneg_sum(got.sum_abs_diff, (double)t.sad, "sum_abs_diff");
  expect_nonneg_sum(got.sum_rel, (double)t.srel, "sum_rel");
  expect_same(got.max_abs_diff, want.max_abs_diff, "max_abs_diff");
  EXPECT_EQ(got.max_abs_index, want.max_abs_index);
  expect_same(got.max_rel, want.max_rel, "max_rel");
  EXPECT_EQ(got.max_rel_index, want.max_rel_index);
  EXPECT_EQ(got.rel_below[0], want.rel_below[0]);
  EXPECT_EQ(got.rel_below[1], want.rel_below[1]);
  EXPECT_EQ(got.nonfinite_mismatch, want.nonfinite_mismatch);
  EXPECT_EQ(got.first_mismatch_index, want.first_mismatch_index);
  expect_side(got.a, want.a, t.sum_a, t.sq_a, t.abs_sum_a, "side a");
  expect_side(got.b, want.b, t.sum_b, t.sq_b, t.abs_sum_b, "side b");
}

/// Lengths around the vector widths, plus large ones.
inline std::vector<std::size_t> test_lengths(bool with_million = true) {
  std::vector<std::size_t> v = {0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4096 + 3};
  if (with_million) v.push_back(1000000);
  return v;
}

/// Runs Kernel and Scalar over n pairs starting at element `offset` of the
/// buffers (misaligned starts), split into runs of `run` elements (as strided
/// views feed kernels run by run), and checks every field.
template <class Kernel, class TA, class TB>
void check_kernel(std::size_t n, std::size_t offset, std::size_t run, std::uint64_t seed, bool nonfinite = true) {
  auto d = make_pairs<TA, TB>(n + offset, seed, nonfinite);
  const TA* a = d.a.data() + offset;
  const TB* b = d.b.data() + offset;
  KernelParams k;
  if (seed % 2 == 0) {  // every other case: the float64 relative error (odd seeds: float32)
    k.rel_float32 = false;
    k.zero_bench_eps = 2.220446049250313e-16;
  }
  Partial got, want;
  SideStats sgot, swant;
  const std::uint64_t first = 1000;  // non-zero flat index of the first element
  for (std::size_t i = 0; i < n; i += run) {
    const std::size_t m = std::min(run, n - i);
    Kernel::accumulate(a + i, b + i, m, first + i, k, got);
    kernels::Scalar::accumulate(a + i, b + i, m, first + i, k, want);
    Kernel::summarize(a + i, m, sgot);
    kernels::Scalar::summarize(a + i, m, swant);
  }
  const AbsTerms t = abs_terms(a, b, n, k);
  SCOPED_TRACE("n=" + std::to_string(n) + " offset=" + std::to_string(offset) + " run=" + std::to_string(run) +
               (k.rel_float32 ? " rel float32" : " rel float64"));
  expect_partial(got, want, t);
  expect_side(sgot, swant, t.sum_a, t.sq_a, t.abs_sum_a, "summarize");
}

/// All lengths × offsets 0..2 × whole runs and short runs.
template <class Kernel, class TA, class TB> void check_all_lengths(bool with_million = true) {
  std::uint64_t seed = 1;
  for (std::size_t n : test_lengths(with_million)) {
    for (std::size_t off : {0, 1, 3}) {
      if (n >= 1000000 && off != 1) continue;  // one misaligned large case is enough
      check_kernel<Kernel, TA, TB>(n, off, n ? n : 1, seed++);
      if (n > 100 && n < 100000) check_kernel<Kernel, TA, TB>(n, off, 37, seed++);
    }
    // All finite: whole blocks take a kernel's unchecked fast path, where
    // nan/inf data (2% of positions above) would divert almost every block.
    if (n > 0) check_kernel<Kernel, TA, TB>(n, 1, n, seed++, false);
  }
}

}  // namespace td_test

/// Every kernel dtype pair (metrics/detail/pairing.hpp) as X(NAME, TA, TB), so
/// each backend's test instantiates the same list.
#define TD_FOR_EACH_KERNEL_PAIR(X) \
  X(F32F32, float, float) \
  X(F64F64, double, double) \
  X(F16F16, float16, float16) \
  X(BF16BF16, bfloat16, bfloat16) \
  X(F32BF16, float, bfloat16) \
  X(BF16F32, bfloat16, float) \
  X(F32F16, float, float16) \
  X(F16F32, float16, float) \
  X(F32F64, float, double) \
  X(F64F32, double, float) \
  X(F16BF16, float16, bfloat16) \
  X(BF16F16, bfloat16, float16) \
  X(F16F64, float16, double) \
  X(F64F16, double, float16) \
  X(BF16F64, bfloat16, double) \
  X(F64BF16, double, bfloat16) \
  X(I32I32, std::int32_t, std::int32_t) \
  X(I16I16, std::int16_t, std::int16_t) \
  X(I8I8, std::int8_t, std::int8_t) \
  X(U8U8, std::uint8_t, std::uint8_t) \
  X(U16U16, std::uint16_t, std::uint16_t) \
  X(U32U32, std::uint32_t, std::uint32_t) \
  X(I64I64, std::int64_t, std::int64_t) \
  X(U64U64, std::uint64_t, std::uint64_t) \
  X(I64U64, std::int64_t, std::uint64_t) \
  X(U64I64, std::uint64_t, std::int64_t) \
  X(BoolBool, bool8, bool8)
