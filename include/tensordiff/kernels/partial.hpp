// tensordiff — Partial: the mergeable accumulator every kernel fills.
//
// A Partial summarises a contiguous range of flat (C-order) indices of a pair
// of tensors. Chunks, threads and GPU blocks each fill one; merge() combines
// them. Max/min/counts/indices merge exactly (ties keep the smaller index,
// i.e. numpy's first occurrence), so those fields do not depend on how the
// range was split; sums are double and differ only by rounding.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "../core/element.hpp"

TD_NAMESPACE_BEGIN

/// The flat index that means "none" (2^64 - 1): e.g. Partial::max_abs_index before any pair,
/// or Partial::first_mismatch_index when the nan / inf positions agree.
inline constexpr std::uint64_t no_index = ~std::uint64_t{0};

namespace detail {
TD_HOST_DEVICE constexpr double inf() { return __builtin_huge_val(); }
}  // namespace detail

/// A set of metrics (bit flags, see namespace metric): which ones compare() computes.
/// Combine with `|`; compare<metric::cosine | metric::max_abs>(a, b) asks for two.
enum class MetricSet : std::uint16_t {};
/// The union of two metric sets.
constexpr MetricSet operator|(MetricSet a, MetricSet b) noexcept {
  return MetricSet{static_cast<std::uint16_t>(static_cast<unsigned>(a) | static_cast<unsigned>(b))};
}
/// The intersection of two metric sets.
constexpr MetricSet operator&(MetricSet a, MetricSet b) noexcept {
  return MetricSet{static_cast<std::uint16_t>(static_cast<unsigned>(a) & static_cast<unsigned>(b))};
}
/// Whether `m` holds any metric of `of`.
constexpr bool has_any(MetricSet m, MetricSet of) noexcept { return static_cast<unsigned>(m & of) != 0; }

/// The metrics of compare(), one flag each. NaN / inf counts and their positions are always
/// computed (the validation chain needs them).
namespace metric {
inline constexpr MetricSet cosine{1};          ///< Comparison::cosine
inline constexpr MetricSet euclidean{2};       ///< Comparison::euclidean_distance
inline constexpr MetricSet max_abs{4};         ///< Comparison::max_abs_err and its index
inline constexpr MetricSet max_rel{8};         ///< Comparison::max_rel_err and its index
inline constexpr MetricSet thousandths{16};    ///< one_thousandth_ratio and five_thousandths_ratio
inline constexpr MetricSet mean_abs{32};       ///< Comparison::mean_abs_err
inline constexpr MetricSet mean_rel{64};       ///< Comparison::mean_rel_err
inline constexpr MetricSet rmse{128};          ///< Comparison::rmse
inline constexpr MetricSet statistics{256};    ///< min / max / mean / norm of each side (Summary)
inline constexpr MetricSet all{511};           ///< everything (the default)
/// What assert_close and the standards read: max abs / rel errors and the threshold counts.
inline constexpr MetricSet assert_close = max_abs | max_rel | thousandths;
}  // namespace metric

/// The complement of `m`: every metric of metric::all but those of `m` (e.g. all but mean_rel).
constexpr MetricSet operator~(MetricSet m) noexcept {
  return MetricSet{static_cast<std::uint16_t>(~static_cast<unsigned>(m) & static_cast<unsigned>(metric::all))};
}

namespace detail {
/// The parts of the fused pass a metric set needs. A kernel may compute more than asked.
struct PassParts {
  bool rel_max;    ///< max relative error, its index and the threshold counts (max_rel, thousandths)
  bool rel_sum;    ///< Σ relative error (mean_rel)
  bool abs_max;    ///< max |a − b| and its index (max_abs)
  bool diff_sums;  ///< Σ(a − b)² and Σ|a − b| (euclidean, rmse, mean_abs)
  bool dot;        ///< Σa·b, Σa², Σb² (cosine)
  bool sides;      ///< Σa, Σa², min and max of each side (statistics)
};
/// The parts of the fused pass that the metric set `m` needs.
constexpr PassParts pass_parts(MetricSet m) noexcept {
  return {has_any(m, metric::max_rel | metric::thousandths),
          has_any(m, metric::mean_rel),
          has_any(m, metric::max_abs),
          has_any(m, metric::euclidean | metric::mean_abs | metric::rmse),
          has_any(m, metric::cosine),
          has_any(m, metric::statistics)};
}
}  // namespace detail

/// Per-element parameters of the fused pass.
struct KernelParams {
  /// eps added to both sides where bench == 0 (msprobe's get_relative_err), in the relative
  /// error's type: float32 eps (2^-23) with rel_float32, float64 eps (2^-52) otherwise. One that
  /// is 0 or not finite in that type makes 0 / 0 a NaN error, skipped by the maximum: kernels then
  /// run the scalar reference (detail::relative_error_can_be_nan).
  double zero_bench_eps = 1.1920928955078125e-07;
  /// Relative-error thresholds counted strictly below (msprobe: 0.001, 0.005). With
  /// rel_float32 the caller passes them rounded to float, as numpy compares a float32 array.
  double rel_thresholds[2] = {1e-3, 5e-3};
  /// The relative error's arithmetic: float32 (every operation rounded to float; numpy's
  /// result_type(n, b, float32) for 16/32-bit floats) or float64.
  bool rel_float32 = true;
  /// The metrics asked for: a kernel may skip the parts of the pass no metric of the set needs
  /// (detail::pass_parts); the Partial's fields of skipped parts are then unspecified.
  MetricSet metrics = metric::all;
};

/// Statistics of one side. Sums and extremes are over finite elements only;
/// non-finite elements are counted. Summary derives numpy-style results.
struct SideStats {
  /// Elements that are NaN.
  std::uint64_t nan_count = 0;
  /// Elements that are +inf.
  std::uint64_t pos_inf_count = 0;
  /// Elements that are -inf.
  std::uint64_t neg_inf_count = 0;
  /// Smallest finite element; +inf while there is none (so merge() needs no flag).
  double finite_min = detail::inf();
  /// Largest finite element; -inf while there is none.
  double finite_max = -detail::inf();
  double sum = 0;     ///< Σx over finite x
  double sum_sq = 0;  ///< Σx² over finite x

  /// Folds one element (already widened exactly to double) in: finite values update the
  /// extremes and sums, NaN and ±inf only their counts.
  TD_HOST_DEVICE void add(double x) {
    if (TD_LIKELY(std::isfinite(x))) {
      finite_min = x < finite_min ? x : finite_min;
      finite_max = x > finite_max ? x : finite_max;
      sum += x;
      sum_sq += x * x;
    } else if (std::isnan(x)) {
      ++nan_count;
    } else if (x > 0) {
      ++pos_inf_count;
    } else {
      ++neg_inf_count;
    }
  }

  /// Adds the statistics of another range of the same side: counts and extremes are exact,
  /// the sums round as double additions do.
  TD_HOST_DEVICE void merge(const SideStats& o) {
    nan_count += o.nan_count;
    pos_inf_count += o.pos_inf_count;
    neg_inf_count += o.neg_inf_count;
    finite_min = o.finite_min < finite_min ? o.finite_min : finite_min;
    finite_max = o.finite_max > finite_max ? o.finite_max : finite_max;
    sum += o.sum;
    sum_sq += o.sum_sq;
  }

  /// NaN, +inf and -inf elements together.
  TD_HOST_DEVICE std::uint64_t nonfinite_count() const { return nan_count + pos_inf_count + neg_inf_count; }
};

/// Pairwise accumulator. Positions where either side is non-finite enter the
/// error metrics as (0, 0) — msprobe zeroes them when the nan/inf positions of
/// both sides agree; when they disagree (nonfinite_mismatch > 0) the error
/// metrics are reported as N/A anyway.
struct Partial {
  /// Element pairs folded in.
  std::uint64_t count = 0;
  double dot = 0;           ///< Σ a·b
  double sum_sq_diff = 0;   ///< Σ (a−b)²
  double sum_abs_diff = 0;  ///< Σ |a−b|
  double sum_rel = 0;       ///< Σ relative error
  /// Largest |a−b|; -1 until a pair is folded in (every real |a−b| is >= 0, so the first wins).
  double max_abs_diff = -1;
  /// Flat C-order index of max_abs_diff (the smallest on ties); no_index before any pair.
  std::uint64_t max_abs_index = no_index;
  /// Largest relative error: |a−b| / |b|, or |a| / KernelParams::zero_bench_eps where b == 0;
  /// -1 until a pair is folded in.
  double max_rel = -1;
  /// Flat C-order index of max_rel (the smallest on ties); no_index before any pair.
  std::uint64_t max_rel_index = no_index;
  std::uint64_t rel_below[2] = {0, 0};  ///< count(rel < KernelParams::rel_thresholds[i])
  std::uint64_t nonfinite_mismatch = 0; ///< positions whose nan / inf status differs
  /// Smallest flat index where the nan / inf status differs; no_index when none does.
  std::uint64_t first_mismatch_index = no_index;
  ///@{
  /// Statistics of each side: `a` of the actual (NPU) tensor, `b` of the expected (bench) one.
  SideStats a, b;
  ///@}

  /// Adds another range's accumulator, in any order: maxima, indices and counts come out as
  /// if one pass had run over both ranges; the sums differ only by rounding.
  TD_HOST_DEVICE void merge(const Partial& o) {
    count += o.count;
    dot += o.dot;
    sum_sq_diff += o.sum_sq_diff;
    sum_abs_diff += o.sum_abs_diff;
    sum_rel += o.sum_rel;
    take_max(max_abs_diff, max_abs_index, o.max_abs_diff, o.max_abs_index);
    take_max(max_rel, max_rel_index, o.max_rel, o.max_rel_index);
    rel_below[0] += o.rel_below[0];
    rel_below[1] += o.rel_below[1];
    nonfinite_mismatch += o.nonfinite_mismatch;
    first_mismatch_index = o.first_mismatch_index < first_mismatch_index ? o.first_mismatch_index : first_mismatch_index;
    a.merge(o.a);
    b.merge(o.b);
  }

  /// Larger value wins; on a tie the smaller index (first occurrence).
  TD_HOST_DEVICE static void take_max(double& v, std::uint64_t& i, double ov, std::uint64_t oi) {
    if (ov > v || (ov == v && oi < i)) {
      v = ov;
      i = oi;
    }
  }
};

namespace detail {

/// The relative error of one finite pair, msprobe's get_relative_err: where b == 0 (−0 too)
/// eps is added to both sides, then |(n − b) / b|, every operation in the relative error's type
/// (no contraction: there is no multiply to fuse). The float32 form rounds the inputs to float
/// first (exact for 16/32-bit floats). Every kernel reproduces this bit for bit.
TD_HOST_DEVICE inline double relative_error(double a, double b, const KernelParams& k) {
  if (k.rel_float32) {
    const float eps = static_cast<float>(k.zero_bench_eps);
    float n = static_cast<float>(a), d = static_cast<float>(b);
    if (d == 0) {
      n = n + eps;
      d = eps;
    }
    const float q = (n - d) / d;
    return std::fabs(static_cast<double>(q));
  }
  double n = a, d = b;
  if (d == 0) {
    n = n + k.zero_bench_eps;
    d = k.zero_bench_eps;
  }
  return std::fabs((n - d) / d);
}

/// zero_bench_eps in the relative error's type (rounded to float under the float32 rule), as the
/// vector kernels take it.
TD_HOST_DEVICE inline double relative_error_eps(const KernelParams& k) {
  return k.rel_float32 ? static_cast<double>(static_cast<float>(k.zero_bench_eps)) : k.zero_bench_eps;
}

/// The error part of one element pair, given the side values as double and
/// |a−b| computed exactly where the inputs allow. Shared by the scalar kernel,
/// the SIMD kernels' tails and the CUDA kernel.
TD_HOST_DEVICE inline void accumulate_error(Partial& p, double a, double b, double abs_diff, std::uint64_t index,
                                            const KernelParams& k) {
  p.dot += a * b;
  // abs_diff, not a - b: for int64 pairs beyond 2^53 only abs_diff is exact.
  p.sum_sq_diff += abs_diff * abs_diff;
  p.sum_abs_diff += abs_diff;
  if (abs_diff > p.max_abs_diff) {
    p.max_abs_diff = abs_diff;
    p.max_abs_index = index;
  }
  const double rel = relative_error(a, b, k);
  p.sum_rel += rel;
  if (rel > p.max_rel) {
    p.max_rel = rel;
    p.max_rel_index = index;
  }
  p.rel_below[0] += rel < k.rel_thresholds[0];
  p.rel_below[1] += rel < k.rel_thresholds[1];
}

/// One element pair: the reference semantics of the fused pass.
template <class TA, class TB>
TD_HOST_DEVICE inline void accumulate_pair(Partial& p, TA a_raw, TB b_raw, std::uint64_t index, const KernelParams& k) {
  const double a = to_double(a_raw), b = to_double(b_raw);
  ++p.count;
  p.a.add(a);
  p.b.add(b);
  if constexpr (is_integral_storage_v<TA> && is_integral_storage_v<TB>) {
    accumulate_error(p, a, b, exact_abs_diff(a_raw, b_raw), index, k);
  } else if (TD_LIKELY(std::isfinite(a) && std::isfinite(b))) {
    accumulate_error(p, a, b, std::fabs(a - b), index, k);
  } else {
    if (std::isnan(a) != std::isnan(b) || std::isinf(a) != std::isinf(b)) {
      ++p.nonfinite_mismatch;
      if (index < p.first_mismatch_index) p.first_mismatch_index = index;
    }
    accumulate_error(p, 0.0, 0.0, 0.0, index, k);
  }
}

}  // namespace detail

TD_NAMESPACE_END
