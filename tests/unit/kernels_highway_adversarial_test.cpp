// Highway kernel on adversarial data (kernels_adversarial.hpp), on every compiled target the
// CPU supports (HWY_COMPILE_ALL_ATTAINABLE, forced one by one as TD_FORCE_TARGET would), and
// compare() over odd-strided, reversed and transposed views with NaN / inf at run edges.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

#include "kernels_highway_test_util.hpp"

#include "kernels_adversarial.hpp"
#include "tensordiff/kernels/detail/software_prefetch.hpp"
#include "tensordiff/metrics/compare.hpp"

namespace {
using namespace tensordiff;
using td_test::EachHighwayTarget;
using td_test::for_each_highway_target;

// Each check computes its references once and runs the kernel on every target.
#define TD_ADV_TEST(NAME, TA, TB) \
  TEST(HighwayAdversarial, NAME) { td_test::check_adversarial<kernels::Highway, TA, TB>(EachHighwayTarget{}); }

TD_FOR_EACH_ADVERSARIAL_PAIR(TD_ADV_TEST)

#if defined(__x86_64__) || defined(__i386__)
// The first /proc/cpuinfo line `<key>\t: value` (the value), or "" without one: the kernel's own
// CPUID reads checked against what Linux reports.
std::string proc_cpuinfo(const std::string& key) {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos) return line.substr(line.find(':') + 2);
  return "";
}
#endif

// The AVX-512 passes' software prefetch (software_prefetch.hpp): TD_HWY_PREFETCH=0 / 1 decides,
// else the vendor. ctest also runs this binary with each setting, so the checks above see both
// loops whatever the machine's vendor.
TEST(HighwayPrefetch, ChoiceFollowsTheEnvironmentThenTheVendor) {
  const detail::PrefetchChoice& c = detail::avx512_prefetch();
  const char* env = std::getenv("TD_HWY_PREFETCH");
  const std::string set = env ? env : "";
  if (set == "0" || set == "1") {
    EXPECT_EQ(c.on, set == "1");
    EXPECT_EQ(std::string(c.reason), "TD_HWY_PREFETCH=" + set);
    return;
  }
#if defined(__x86_64__) || defined(__i386__)
  const std::string vendor = proc_cpuinfo("vendor_id");
  if (vendor.empty()) GTEST_SKIP() << "no vendor_id in /proc/cpuinfo";
  EXPECT_EQ(detail::cpu_is_intel(), vendor == "GenuineIntel") << vendor;
  EXPECT_EQ(c.on, vendor == "GenuineIntel") << vendor;
  EXPECT_EQ(std::string(c.reason), c.on ? "Intel" : "not Intel");
#else
  EXPECT_FALSE(detail::cpu_is_intel());
  EXPECT_FALSE(c.on);
#endif
}

// The target check reads F16C and VAES from CPUID itself (clang 14's __builtin_cpu_supports lacks
// them): the bits must be the ones Linux lists as the flags f16c / vaes.
TEST(HighwayTargets, CpuidFeatureBitsAgreeWithProcCpuinfo) {
#if defined(__x86_64__) || defined(__i386__)
  const std::string flags = " " + proc_cpuinfo("flags") + " ";
  if (flags == "  ") GTEST_SKIP() << "no flags in /proc/cpuinfo";
  EXPECT_EQ(detail::x86_cpuid_bit(1, 0, 2, 29), flags.find(" f16c ") != std::string::npos) << flags;
  EXPECT_EQ(detail::x86_cpuid_bit(7, 0, 2, 9), flags.find(" vaes ") != std::string::npos) << flags;
  EXPECT_EQ(detail::x86_cpuid_bit(1, 0, 3, 26), flags.find(" sse2 ") != std::string::npos) << flags;
  EXPECT_FALSE(detail::x86_cpuid_bit(0x7fffffffu, 0, 0, 0));  // beyond the highest leaf
#else
  EXPECT_FALSE(detail::x86_cpuid_bit(1, 0, 2, 29));
#endif
}

// Relative errors that are NaN for finite pairs (eps 0 or inf, the float32 rule over float64
// values beyond float's range) are skipped by the maximum, as the reference skips them.
TEST(HighwayAdversarial, NanRelativeErrors) {
  td_test::check_nan_relative_errors_all_pairs<kernels::Highway>(EachHighwayTarget{});
}

/// The integer-lane passes (same-type 8/16-bit integers: cosine + max abs, statistics, assert_close; summarize())
/// on data heavy in the type's extremes: all-minimum runs make every int16 product pair
/// 2·(−32768)², the one that wraps int32. Every sum here is an integer below 2^53, so the reference's double sums
/// are exact and the kernel's must equal them bit for bit.
template <class T> void check_int_lane_extremes() {
  using L = std::numeric_limits<T>;
  const T picks[] = {L::min(), L::max(), T(L::min() + 1), T(L::max() - 1), T(0), T(1), T(L::max() / 2)};
  std::mt19937_64 rng(sizeof(T) * 131 + L::is_signed);
  std::uniform_int_distribution<int> any(L::min(), L::max()), pick(0, static_cast<int>(std::size(picks)) - 1);
  const MetricSet sets[] = {metric::cosine | metric::max_abs, metric::statistics, metric::cosine, metric::assert_close};
  for (std::size_t n : {0, 1, 7, 16, 17, 33, 65, 129, 1023, 4095, 4097, 8191, 8193, 16385, 3 * 32768 + 7}) {
    for (int mode = 0; mode < 3; ++mode) {  // all minimum; extremes; uniform
      std::vector<T> a(n + 1), b(n + 1);
      for (std::size_t i = 0; i <= n; ++i) {
        a[i] = mode == 0 ? L::min() : mode == 1 ? picks[pick(rng)] : static_cast<T>(any(rng));
        b[i] = mode == 0 ? L::min() : mode == 1 ? picks[pick(rng)] : static_cast<T>(any(rng));
      }
      for (MetricSet m : sets) {
        KernelParams k = td_test::adversarial_params<T, T>();
        k.metrics = m;
        Partial want;
        kernels::Scalar::accumulate(a.data() + 1, b.data() + 1, n, 5, k, want);
        const td_test::AbsTerms terms = td_test::abs_terms(a.data() + 1, b.data() + 1, n, k);
        SCOPED_TRACE("n=" + std::to_string(n) + " mode=" + std::to_string(mode) + " set=" + std::to_string(static_cast<unsigned>(m)));
        const detail::PassParts parts = detail::pass_parts(m);
        for_each_highway_target([&] {
          Partial got;
          kernels::Highway::accumulate(a.data() + 1, b.data() + 1, n, 5, k, got);
          td_test::expect_partial_parts(got, want, terms, m);
          if (parts.dot) {
            EXPECT_EQ(got.dot, want.dot);
            EXPECT_EQ(got.a.sum_sq, want.a.sum_sq);
            EXPECT_EQ(got.b.sum_sq, want.b.sum_sq);
          }
          if (parts.sides) {
            EXPECT_EQ(got.a.sum, want.a.sum);
            EXPECT_EQ(got.b.sum, want.b.sum);
            EXPECT_EQ(got.a.sum_sq, want.a.sum_sq);
            EXPECT_EQ(got.b.sum_sq, want.b.sum_sq);
            EXPECT_EQ(got.a.finite_min, want.a.finite_min);
            EXPECT_EQ(got.a.finite_max, want.a.finite_max);
            EXPECT_EQ(got.b.finite_min, want.b.finite_min);
            EXPECT_EQ(got.b.finite_max, want.b.finite_max);
          }
        });
        if (::testing::Test::HasFailure()) return;
      }
      SideStats want;  // summarize() of one side takes the same lanes
      kernels::Scalar::summarize(a.data() + 1, n, want);
      SCOPED_TRACE("summarize n=" + std::to_string(n) + " mode=" + std::to_string(mode));
      for_each_highway_target([&] {
        SideStats got;
        kernels::Highway::summarize(a.data() + 1, n, got);
        EXPECT_EQ(got.finite_min, want.finite_min);
        EXPECT_EQ(got.finite_max, want.finite_max);
        EXPECT_EQ(got.sum, want.sum);
        EXPECT_EQ(got.sum_sq, want.sum_sq);
      });
      if (::testing::Test::HasFailure()) return;
    }
  }
}

/// assert_close's set of 8/16-bit integers (IntRel16Block, IntRel8Block) under thresholds and eps
/// other than the defaults: ratios exactly on each threshold and one step either side, bench zeros
/// under ±a, equal pairs, extremes, thresholds down to 2^-21 and 1e-300; and parameters outside
/// that pass's assumptions (eps 2^-10 or 1, thresholds above 1), which take the double-lane pass.
/// Every field equals the reference's.
template <class T> void check_int_rel_params() {
  using L = std::numeric_limits<T>;
  struct Case {
    double t0, t1, eps;
  };
  const Case cases[] = {{1e-3, 5e-3, 0x1p-52}, {0.25, 1.0 / 3, 1e-10},   {1.0, 0x1p-20, 0x1p-52}, {0.1, 0.5, 0x1p-10},
                        {2.0, 0.01, 0x1p-52},  {0.01, 0.02, 1.0},       {0x1p-21, 0.3, 0x1p-52}, {1e-300, 1.0 / 128, 0x1p-52}};
  std::mt19937_64 rng(sizeof(T) * 977 + L::is_signed);
  std::uniform_int_distribution<int> any(L::min(), L::max()), mode(0, 5), small(-2, 2), side(-1, 1);
  for (const Case& c : cases) {
    KernelParams k;
    k.metrics = metric::assert_close;
    k.rel_float32 = false;  // compare()'s rule for integer pairs
    k.rel_thresholds[0] = c.t0;
    k.rel_thresholds[1] = c.t1;
    k.zero_bench_eps = c.eps;
    for (std::size_t n : {0, 7, 100, 4095, 4105, 3 * 8192 + 7}) {
      std::vector<T> a(n + 1), b(n + 1);
      for (std::size_t i = 0; i <= n; ++i) {
        int x = any(rng), y = any(rng);
        switch (mode(rng)) {
          case 0:
          case 1: {  // a = b·(1 ± t) rounded, then ± one: on a threshold where t·b is whole
            const double t = k.rel_thresholds[i % 2];
            x = y + side(rng) + static_cast<int>(std::lround(t * y)) * (side(rng) < 0 ? -1 : 1);
            break;
          }
          case 2: y = 0, x = small(rng); break;
          case 3: x = y; break;
          case 4: x = i % 2 ? L::min() : L::max(), y = i % 3 ? small(rng) : L::min(); break;
          default: break;
        }
        a[i] = static_cast<T>(std::clamp<int>(x, L::min(), L::max()));
        b[i] = static_cast<T>(y);
      }
      Partial want;
      kernels::Scalar::accumulate(a.data() + 1, b.data() + 1, n, 3, k, want);
      const td_test::AbsTerms terms = td_test::abs_terms(a.data() + 1, b.data() + 1, n, k);
      SCOPED_TRACE("n=" + std::to_string(n) + " t=" + std::to_string(c.t0) + "," + std::to_string(c.t1) +
                   " eps=" + std::to_string(c.eps));
      for_each_highway_target([&] {
        Partial got;
        kernels::Highway::accumulate(a.data() + 1, b.data() + 1, n, 3, k, got);
        td_test::expect_partial_parts(got, want, terms, k.metrics);
      });
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(HighwayAdversarial, IntRelParamsI16) { check_int_rel_params<std::int16_t>(); }
TEST(HighwayAdversarial, IntRelParamsI8) { check_int_rel_params<std::int8_t>(); }
TEST(HighwayAdversarial, IntRelParamsU8) { check_int_rel_params<std::uint8_t>(); }

TEST(HighwayAdversarial, IntLaneExtremesI16) { check_int_lane_extremes<std::int16_t>(); }
TEST(HighwayAdversarial, IntLaneExtremesI8) { check_int_lane_extremes<std::int8_t>(); }
TEST(HighwayAdversarial, IntLaneExtremesU8) { check_int_lane_extremes<std::uint8_t>(); }

/// compare() of strided views against the same views through kernels::Scalar: every field.
template <class T> void check_views(const TensorView& a, const TensorView& b, const char* what) {
  SCOPED_TRACE(what);
  CompareOptions o;
  o.chunk_elements = 5000;  // chunk edges inside rows
  const Comparison want = compare<kernels::Scalar>(a, b, o);
  for_each_highway_target([&] {
    const Comparison got = compare(a, b, o);
    const Partial &g = got.partial, &w = want.partial;
    EXPECT_EQ(g.count, w.count);
    EXPECT_EQ(g.max_abs_diff, w.max_abs_diff);
    EXPECT_EQ(g.max_abs_index, w.max_abs_index);
    EXPECT_EQ(g.max_rel, w.max_rel);
    EXPECT_EQ(g.max_rel_index, w.max_rel_index);
    EXPECT_EQ(g.rel_below[0], w.rel_below[0]);
    EXPECT_EQ(g.rel_below[1], w.rel_below[1]);
    EXPECT_EQ(g.nonfinite_mismatch, w.nonfinite_mismatch);
    EXPECT_EQ(g.first_mismatch_index, w.first_mismatch_index);
    EXPECT_EQ(g.a.finite_min, w.a.finite_min);
    EXPECT_EQ(g.b.finite_max, w.b.finite_max);
    EXPECT_EQ(g.a.nan_count, w.a.nan_count);
    auto near = [](double x, double y) { return x == y || std::fabs(x - y) <= 1e-12 * std::fabs(y); };
    EXPECT_PRED2(near, g.sum_abs_diff, w.sum_abs_diff);
    EXPECT_PRED2(near, g.sum_rel, w.sum_rel);
    EXPECT_PRED2(near, g.a.sum_sq, w.a.sum_sq);
  });
}

template <class T> void check_strided_views() {
  const std::int64_t r = 193, c = 517;  // odd extents: tails in every row
  auto d = td_test::adversarial_pairs<T, T>(static_cast<std::size_t>(3 * r * c), 5, true);
  const DType dt = dtype_of<T>();
  // transposed: element (i, j) at j·r + i
  check_views<T>(TensorView(d.a.data(), dt, Shape{r, c}, Strides{1, r}), TensorView(d.b.data(), dt, Shape{r, c}),
                 "transposed vs contiguous");
  check_views<T>(TensorView(d.a.data(), dt, Shape{r, c}, Strides{1, r}),
                 TensorView(d.b.data(), dt, Shape{r, c}, Strides{1, r}), "both transposed");
  // odd stride 3 and reversed (negative stride)
  check_views<T>(TensorView(d.a.data(), dt, Shape{r * c}, Strides{3}),
                 TensorView(d.b.data() + 3 * r * c - 1, dt, Shape{r * c}, Strides{-1}), "stride 3 vs reversed");
  // 3-d with permuted axes and a column step
  const std::int64_t w = c / 2;
  check_views<T>(TensorView(d.a.data(), dt, Shape{5, r, w}, Strides{1, 5, 5 * r}),
                 TensorView(d.b.data(), dt, Shape{5, r, w}, Strides{r * c / 3, c, 2}), "permuted 3-d vs column step");
}

TEST(HighwayAdversarial, StridedViewsF32) { check_strided_views<float>(); }
TEST(HighwayAdversarial, StridedViewsBF16) { check_strided_views<bfloat16>(); }

/// The index rescans (the first pair that holds each maximum) where they can go wrong:
/// - float candidates that are not the maximum: a − b of a large a and a tiny b rounds in float to
///   the same value for every b (the float-lane pass's abs rescan picks its candidates in float
///   lanes) while the exact differences grow with the index; the largest sits late in its block,
///   spread across vector groups, and a tie after it must lose;
/// - an infinite maximum from a finite pair (a float quotient over a denormal, a − b of two doubles
///   near their maximum) after pairs with an inf / NaN input, whose |a − b| and relative error are
///   inf / NaN too but which the reference skips.
/// Each target's indices and maxima equal kernels::Scalar's, which equal the positions built here.
template <class TA, class TB> void check_rescans(double big, double tiny, double denormal = 0, bool inf_abs = false) {
  const bool inf_rel = denormal != 0;
  const std::size_t n = 3 * td_test::kAdvBlock + 37;
  const std::size_t at[] = {3, 17, 64, 65, 130, 300, 1000, 2049};  // exact |a − b| grows along these
  const std::size_t max_at = 2049, tie_at = 3000, inf_at = 2500;
  std::vector<TA> a(n, td_test::from_double<TA>(1.0));
  std::vector<TB> b(n, td_test::from_double<TB>(1.0));
  for (std::size_t k = 0; k < std::size(at); ++k) {
    a[at[k]] = td_test::from_double<TA>(big);
    b[at[k]] = td_test::from_double<TB>(tiny * (1 + (7 - static_cast<double>(k)) / 8));
  }
  a[tie_at] = a[max_at], b[tie_at] = b[max_at];
  std::size_t want_rel = max_at, want_abs = max_at;
  if (inf_rel || inf_abs) {
    // in vectors before the infinite maximum's (a vector with a NaN / inf goes to the reference;
    // the rescan of the block still reads them)
    a[inf_at - 30] = td_test::from_double<TA>(HUGE_VAL), a[inf_at - 25] = td_test::from_double<TA>(std::nan(""));
    b[inf_at - 20] = td_test::from_double<TB>(-HUGE_VAL);
  }
  if (inf_rel) {  // |2^127 − denormal| / denormal overflows float (and 2^127 is the largest |a − b|)
    a[inf_at] = td_test::from_double<TA>(std::ldexp(1.0, 127)), b[inf_at] = td_test::from_double<TB>(denormal);
    want_rel = want_abs = inf_at;
  }
  if (inf_abs) {  // big − (−big) overflows double
    a[inf_at] = td_test::from_double<TA>(big), b[inf_at] = td_test::from_double<TB>(-big);
    want_abs = inf_at;
  }
  for (MetricSet m : {metric::all, metric::cosine | metric::max_abs, metric::assert_close}) {
    SCOPED_TRACE("set=" + std::to_string(static_cast<unsigned>(m)));
    KernelParams k = td_test::adversarial_params<TA, TB>();
    k.metrics = m;
    const bool rel = detail::pass_parts(m).rel_max;  // every set here has max |a − b|
    Partial want;
    kernels::Scalar::accumulate(a.data(), b.data(), n, 0, k, want);
    EXPECT_EQ(want.max_abs_index, want_abs);
    EXPECT_EQ(want.max_abs_diff == HUGE_VAL, inf_abs);
    if (!inf_abs) {
      EXPECT_EQ(want.max_rel_index, want_rel);
    }
    EXPECT_EQ(want.max_rel == HUGE_VAL, inf_rel || inf_abs);
    for_each_highway_target([&] {
      Partial got;
      kernels::Highway::accumulate(a.data(), b.data(), n, 0, k, got);
      EXPECT_EQ(got.max_abs_diff, want.max_abs_diff);
      EXPECT_EQ(got.max_abs_index, want.max_abs_index);
      if (rel) {
        EXPECT_EQ(got.max_rel, want.max_rel);
        EXPECT_EQ(got.max_rel_index, want.max_rel_index);
      }
    });
  }
}

// big and tiny 30 binary orders apart (f16: 29): fl32(big − tiny) = big, fl64 exact.
TEST(HighwayAdversarial, RescansF32) { check_rescans<float, float>(0x1.ep20, 0x1p-10); }
TEST(HighwayAdversarial, RescansF32InfRel) { check_rescans<float, float>(0x1.ep20, 0x1p-10, 0x1p-149); }
TEST(HighwayAdversarial, RescansBF16) { check_rescans<bfloat16, bfloat16>(0x1.ep20, 0x1p-10); }
TEST(HighwayAdversarial, RescansBF16InfRel) { check_rescans<bfloat16, bfloat16>(0x1.ep20, 0x1p-10, 0x1p-133); }
TEST(HighwayAdversarial, RescansF16) { check_rescans<float16, float16>(0x1.ep15, 0x1p-14); }
TEST(HighwayAdversarial, RescansF32BF16) { check_rescans<float, bfloat16>(0x1.ep20, 0x1p-10); }
TEST(HighwayAdversarial, RescansF16F32) { check_rescans<float16, float>(0x1.ep15, 0x1p-14); }
// double lanes: the differences exact in double (44 bits), then one that overflows it
TEST(HighwayAdversarial, RescansF64) { check_rescans<double, double>(0x1.ep20, 0x1p-20); }
TEST(HighwayAdversarial, RescansF64InfAbs) { check_rescans<double, double>(0x1.ep1023, 0x1p-20, 0, true); }

}  // namespace
