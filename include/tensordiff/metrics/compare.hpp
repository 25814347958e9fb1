// tensordiff — compare(): every metric of two tensors in one fused pass.
#pragma once
#include <algorithm>
#include <string>
#include <cmath>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "../core/element_access.hpp"
#include "../core/error.hpp"
#include "../kernels/default.hpp"
#include "comparison.hpp"
#include "detail/pairing.hpp"
#include "detail/reduce.hpp"

TD_NAMESPACE_BEGIN

/// Options of compare(). The defaults reproduce msprobe's current compare.
struct CompareOptions {
  /// Drop extent-1 dimensions first (msprobe ≥ 2026-05 calls np.squeeze, so
  /// shape [1] is 0-d and [1, 3] matches [3]).
  bool squeeze = true;
  /// The relative error's arithmetic type.
  enum class RelativeError : std::uint8_t {
    /// msprobe's (and numpy's): result_type(npu, bench, float32) — float32 when both sides
    /// are 16/32-bit floats, and for 0-d tensors whose values fit a float (NumPy 1.x
    /// value-based casting); float64 otherwise. Thresholds are rounded to that type.
    promoted,
    float64,  ///< always float64 (eps and thresholds as given)
  };
  RelativeError relative_error = RelativeError::promoted;  ///< see RelativeError
  /// eps added at bench zeros; 0 = automatic: the eps of the relative error's type
  /// (float32 eps when both sides are 16/32-bit floats, float64 eps otherwise).
  double zero_bench_eps = 0;
  /// Relative-error thresholds of Comparison::one_thousandth_ratio and
  /// Comparison::five_thousandths_ratio: the share of elements with rel < threshold (strictly).
  double rel_thresholds[2] = {1e-3, 5e-3};
  /// Elements per chunk (at least detail::tile_rows whole rows for a transposed view, see
  /// detail::chunk_for_views). Chunks are merged in index order, so results are
  /// bitwise identical for any thread count; only the chunk size changes rounding. 2^18: each
  /// chunk rescans one kernel block per maximum to find its index, which cost ~6 % of the pass
  /// at 2^16 and ~1.5 % here; 2 MiB of float32 pairs still gives each thread many chunks.
  std::size_t chunk_elements = std::size_t{1} << 18;
  /// Threads for one large comparison, from default_thread_pool(): 0 = all
  /// of the pool (hardware concurrency unless set_default_threads() changed
  /// it), 1 = the calling thread only. Results do not depend on it.
  unsigned threads = 0;
  /// Tensors with fewer elements than this run on the calling thread even when `threads`
  /// allows more: below it, waking the pool costs more than the pass (2^19 elements is
  /// 4 MiB of float32 pairs). Results do not depend on it either.
  std::uint64_t parallel_min_elements = std::uint64_t{1} << 19;
  /// The metrics to compute (runtime selection, e.g. the CLI's --metrics): the kernel skips
  /// the parts of the pass no metric of the set needs; the others get
  /// MetricStatus::not_requested. compare<metric::cosine | metric::max_abs>(a, b) sets it.
  MetricSet metrics = metric::all;
};

namespace detail {
/// msprobe widens bfloat16 and float8 to float32 (float16 stays float16): the dtypes whose relative
/// error numpy computes in float32.
inline bool narrow_float(DType t) { return is_floating(t) && t != DType::float64; }

inline void set_all_six(Comparison& c, MetricStatus s) {
  for (Metric* m : {&c.cosine, &c.euclidean_distance, &c.max_abs_err, &c.max_rel_err, &c.one_thousandth_ratio,
                    &c.five_thousandths_ratio, &c.mean_abs_err, &c.mean_rel_err, &c.rmse})
    *m = Metric::none(s);
}

/// Cosine with msprobe's zero-norm and NaN rules.
inline void finish_cosine(Comparison& c, const Partial& p) {
  constexpr double eps = 2.220446049250313e-16;  // np.finfo(float).eps
  if (p.count == 1) {
    c.cosine = Metric::none(MetricStatus::unsupported);
    c.messages.push_back("This is a 1-d tensor of length 1.");
    return;
  }
  const double na = std::sqrt(p.a.sum_sq), nb = std::sqrt(p.b.sum_sq);
  if (na <= eps && nb <= eps) {
    c.cosine = Metric::of(1.0);
  } else if (na <= eps) {
    c.cosine = Metric::none(MetricStatus::nan);
    c.messages.push_back("Cannot compare by Cosine Similarity, All the data is Zero in npu dump data.");
  } else if (nb <= eps) {
    c.cosine = Metric::none(MetricStatus::nan);
    c.messages.push_back("Cannot compare by Cosine Similarity, All the data is Zero in Bench dump data.");
  } else {
    const double cos = p.dot / (na * nb);
    if (std::isnan(cos)) {
      c.cosine = Metric::none(MetricStatus::nan);
      c.messages.push_back("Cannot compare by Cosine Similarity, the dump data has NaN.");
    } else {
      c.cosine = Metric::of(cos);
    }
  }
}

/// 0-d: msprobe computes only MaxAbsErr and MaxRelativeErr, on the raw values: |n − b| in the
/// promoted storage type (float16 for two float16, float32 for float32/bfloat16, which msprobe
/// loads as float32), the relative error in float32 unless a value exceeds FLT_MAX.
inline void finish_zero_dim(Comparison& c, double x, double y, DType ta, DType tb) {
  double abs_err = std::fabs(x - y);
  if (ta == DType::float16 && tb == DType::float16) {
    abs_err = std::fabs(static_cast<double>(f16_bits_to_f32(f32_to_f16_bits(static_cast<float>(x) - static_cast<float>(y)))));
  } else if (narrow_float(ta) && narrow_float(tb)) {
    abs_err = std::fabs(static_cast<double>(static_cast<float>(x) - static_cast<float>(y)));
  }
  constexpr double flt_max = 3.4028234663852886e38;
  if (c.relative_error_float32 && ((std::fabs(x) > flt_max && std::isfinite(x)) || (std::fabs(y) > flt_max && std::isfinite(y)))) {
    c.relative_error_float32 = false;  // numpy keeps float64 for a value a float cannot hold
    if (c.zero_bench_eps == 1.1920928955078125e-07) c.zero_bench_eps = 2.220446049250313e-16;
  }
  KernelParams k;
  k.rel_float32 = c.relative_error_float32;
  k.zero_bench_eps = c.zero_bench_eps;
  const double rel = relative_error(x, y, k);
  c.max_abs_err = std::isnan(abs_err) ? Metric::none(MetricStatus::nan) : Metric::of(abs_err);
  c.max_rel_err = std::isnan(rel) ? Metric::none(MetricStatus::nan) : Metric::of(rel);
  c.max_abs_index = c.max_rel_index = 0;
  c.actual_at_max_abs = c.actual_at_max_rel = x;
  c.expected_at_max_abs = c.expected_at_max_rel = y;
}

/// One chunk of the fused pass: dispatch on the dtypes, walk the runs.
/// `index_base` is added to the indices the Partial records (the NPU adapter
/// passes chunks of a larger tensor as small views).
/// `start`: maxima found before this range (MaximaFloor::seed), nothing else.
template <class Kernel>
Partial accumulate_range(const TensorView& a, const TensorView& b, std::uint64_t begin, std::uint64_t end,
                         const KernelParams& k, std::uint64_t index_base = 0, Partial start = {}) {
  Partial p = start;
  visit_real_dtypes(a.dtype, b.dtype, [&](auto ta, auto tb) {
    using TA = typename decltype(ta)::type;
    using TB = typename decltype(tb)::type;
    for_each_kernel_block<TA, TB>(a, b, begin, end, [&](const auto* pa, const auto* pb, std::size_t n, std::uint64_t pos) {
      Kernel::accumulate(pa, pb, n, index_base + pos, k, p);
    });
  }, "compare()");
  return p;
}

// With TD_SEPARATE_KERNELS the default kernel's fused pass is compiled once (core/config.hpp).
TD_SEPARATE_PASS(Partial accumulate_range<kernels::Default>(const TensorView&, const TensorView&, std::uint64_t,
                                                            std::uint64_t, const KernelParams&, std::uint64_t, Partial))

/// The chunk size for a pair of views: `chunk`, or at least tile_rows (64) whole rows when a
/// view reads faster across rows (transposed), so the tiled walk (core/detail/runs.hpp) reads
/// long column runs. It depends on the shape and layout only, never on the thread count.
inline std::size_t chunk_for_views(const TensorView& a, const TensorView& b, std::size_t chunk) {
  const auto L = coalesce<2>({&a, &b});
  if (!reads_across_rows(L, 0) && !reads_across_rows(L, 1)) return chunk;
  const auto w = static_cast<std::uint64_t>(L.shape.back());
  const std::uint64_t rows = std::max<std::uint64_t>(tile_rows, (chunk + w - 1) / w);
  return static_cast<std::size_t>(std::min<std::uint64_t>(rows * w, std::uint64_t{1} << 24));
}

/// The largest maxima (with their indices) of the chunks of one compare() finished so far, shared
/// by its threads. A chunk that starts from them (seed) knows what its blocks must beat: the
/// kernels skip the index rescan of a block that cannot win (drive_blocks), which without it
/// every chunk paid for its two best blocks (~3 % of a 16-bit assert_close pass). The result does
/// not change: take_max keeps (largest value, smallest index) in any merge order, and a chunk
/// takes only maxima from before its first index, so its own ties keep their order too.
class MaximaFloor {
 public:
  /// A Partial holding only the maxima found before index `begin`.
  Partial seed(std::uint64_t begin) const {
    Partial p;
    std::lock_guard<std::mutex> lock(mutex_);
    if (best_.max_abs_index < begin) p.max_abs_diff = best_.max_abs_diff, p.max_abs_index = best_.max_abs_index;
    if (best_.max_rel_index < begin) p.max_rel = best_.max_rel, p.max_rel_index = best_.max_rel_index;
    return p;
  }
  /// Folds a finished chunk's maxima in.
  void see(const Partial& p) {
    std::lock_guard<std::mutex> lock(mutex_);
    Partial::take_max(best_.max_abs_diff, best_.max_abs_index, p.max_abs_diff, p.max_abs_index);
    Partial::take_max(best_.max_rel, best_.max_rel_index, p.max_rel, p.max_rel_index);
  }

 private:
  mutable std::mutex mutex_;
  Partial best_;
};

/// accumulate_range of one chunk of a compare() whose chunks share `found`: it starts from the
/// maxima found before its first index (index_base + begin) and adds its own to `found`.
template <class Kernel>
Partial accumulate_chunk(MaximaFloor& found, const TensorView& a, const TensorView& b, std::uint64_t begin,
                         std::uint64_t end, const KernelParams& k, std::uint64_t index_base = 0) {
  Partial p = accumulate_range<Kernel>(a, b, begin, end, k, index_base, found.seed(index_base + begin));
  found.see(p);
  return p;
}

template <class Kernel>
Partial accumulate_views(const TensorView& a, const TensorView& b, const KernelParams& k, const CompareOptions& o) {
  if (is_complex(a.dtype) || is_complex(b.dtype))  // fail before any thread starts
    visit_real_dtypes(a.dtype, b.dtype, [](auto, auto) {}, "compare()");
  const unsigned threads = a.numel() < o.parallel_min_elements ? 1u : o.threads;
  MaximaFloor found;  // by the chunks finished so far
  return chunked_reduce<Partial>(a.numel(), chunk_for_views(a, b, o.chunk_elements), threads,
                                 [&](std::uint64_t begin, std::uint64_t end) {
    return accumulate_chunk<Kernel>(found, a, b, begin, end, k);
  });
}
}  // namespace detail

namespace detail {
/// compare() before the fused pass (shared with the device backends): fills
/// numel, dtypes_match, zero_bench_eps and decides the empty and shape
/// validations. `a`/`b` are the squeezed views. Returns false when the
/// comparison is decided without a pass; for shape_unmatched the caller still
/// fills c.actual / c.expected (summaries of each side).
inline bool start_comparison(Comparison& c, const TensorView& a, const TensorView& b, const CompareOptions& o) {
  c.numel = a.numel();
  c.dtypes_match = a.dtype == b.dtype;
  // 0-d: NumPy 1.x value-based casting gives float32 for any dtype (values permitting).
  c.relative_error_float32 = o.relative_error == CompareOptions::RelativeError::promoted &&
                             ((narrow_float(a.dtype) && narrow_float(b.dtype)) || (a.rank() == 0 && b.rank() == 0));
  c.zero_bench_eps = o.zero_bench_eps > 0 ? o.zero_bench_eps : c.relative_error_float32 ? 1.1920928955078125e-07 : 2.220446049250313e-16;
  if (c.numel == 0 || b.numel() == 0) {
    c.validation = Validation::empty;
    c.messages.push_back("This is empty data, can not compare.");
    set_all_six(c, MetricStatus::unsupported);
    return false;
  }
  if (a.shape != b.shape) {
    c.validation = Validation::shape_unmatched;
    c.messages.push_back("Shape of NPU and bench tensor do not match. Skipped.");
    set_all_six(c, MetricStatus::shape_unmatched);
    return false;
  }
  return true;
}

/// The fused pass's parameters; float32 thresholds are rounded to float, as numpy compares a
/// float32 array with a Python float.
inline KernelParams kernel_params(const Comparison& c, const CompareOptions& o) {
  KernelParams k;
  k.zero_bench_eps = c.zero_bench_eps;
  k.rel_float32 = c.relative_error_float32;
  // Not `rel_float32 ? double(float(t)) : t`: GCC 12's SLP vectoriser turns that select over
  // both thresholds into a plain copy, dropping the rounding (-O2 and up).
  for (int i = 0; i < 2; ++i) {
    k.rel_thresholds[i] = o.rel_thresholds[i];
    if (k.rel_float32) k.rel_thresholds[i] = static_cast<double>(static_cast<float>(k.rel_thresholds[i]));
  }
  k.metrics = o.metrics;
  return k;
}

/// Marks the metrics outside c.metrics as not requested (their indices as no_index).
inline void drop_unrequested(Comparison& c) {
  const std::pair<MetricSet, Metric*> m[] = {
      {metric::cosine, &c.cosine},          {metric::euclidean, &c.euclidean_distance},
      {metric::max_abs, &c.max_abs_err},    {metric::max_rel, &c.max_rel_err},
      {metric::thousandths, &c.one_thousandth_ratio}, {metric::thousandths, &c.five_thousandths_ratio},
      {metric::mean_abs, &c.mean_abs_err},  {metric::mean_rel, &c.mean_rel_err},
      {metric::rmse, &c.rmse}};
  for (const auto& [flag, metric_ptr] : m)
    if (!has_any(c.metrics, flag)) *metric_ptr = Metric::none(MetricStatus::not_requested);
  if (!has_any(c.metrics, metric::max_abs)) c.max_abs_index = no_index;
  if (!has_any(c.metrics, metric::max_rel)) c.max_rel_index = no_index;
}

/// compare() after the fused pass produced `p` over the squeezed views `a`,
/// `b` (shared with the device backends): summaries, the rest of the
/// validation chain and the metrics. `element_at(view, flat) -> double` reads
/// one element (element_as_double for host memory; a device backend copies it
/// back). `shape_a`/`shape_b` are the caller's unsqueezed shapes.
template <class ElementAt>
void finish_comparison(Comparison& c, const TensorView& a, const TensorView& b, const Shape& shape_a,
                       const Shape& shape_b, const Partial& p, ElementAt&& element_at) {
  c.partial = p;
  c.actual = make_summary(p.a, a.dtype, shape_a, c.numel);
  c.expected = make_summary(p.b, b.dtype, shape_b, c.numel);
  c.nonfinite_mismatch_count = p.nonfinite_mismatch;
  c.nonfinite_positions_match = p.nonfinite_mismatch == 0;
  c.first_nonfinite_mismatch = p.first_mismatch_index;

  if (a.rank() == 0) {
    c.validation = Validation::zero_dim;
    c.messages.push_back(
        "This is type of 0-d tensor, can not calculate 'Cosine', 'EucDist', 'One Thousandth Err Ratio' and "
        "'Five Thousandths Err Ratio'. ");
    set_all_six(c, MetricStatus::unsupported);
    finish_zero_dim(c, element_at(a, 0), element_at(b, 0), a.dtype, b.dtype);
    drop_unrequested(c);
    return;
  }
  if (!c.nonfinite_positions_match) {
    c.validation = Validation::nonfinite_mismatch;
    c.messages.push_back("The position of inf or nan in NPU and bench Tensor do not match.");
    set_all_six(c, MetricStatus::not_available);
    return;
  }
  if (!c.dtypes_match) c.messages.push_back("Dtype of NPU and bench tensor do not match.");

  const double n = static_cast<double>(p.count);
  finish_cosine(c, p);
  c.euclidean_distance = Metric::of(std::sqrt(p.sum_sq_diff));
  c.max_abs_err = Metric::of(p.max_abs_diff);
  c.max_rel_err = Metric::of(p.max_rel);
  c.one_thousandth_ratio = Metric::of(static_cast<double>(p.rel_below[0]) / n);
  c.five_thousandths_ratio = Metric::of(static_cast<double>(p.rel_below[1]) / n);
  c.mean_abs_err = Metric::of(p.sum_abs_diff / n);
  c.mean_rel_err = Metric::of(p.sum_rel / n);
  c.rmse = Metric::of(std::sqrt(p.sum_sq_diff / n));
  c.max_abs_index = p.max_abs_index;
  c.max_rel_index = p.max_rel_index;
  c.actual_at_max_abs = element_at(a, p.max_abs_index);
  c.expected_at_max_abs = element_at(b, p.max_abs_index);
  c.actual_at_max_rel = element_at(a, p.max_rel_index);
  c.expected_at_max_rel = element_at(b, p.max_rel_index);
  drop_unrequested(c);
}
}  // namespace detail

/// Compares `actual` (the NPU side of a dump) with `expected` (the bench, the
/// reference): msprobe's
/// validation chain, then cosine, Euclidean distance, max/mean abs and rel
/// error, RMSE, the thousandth ratios and both sides' statistics, from one
/// fused pass of `Kernel` over the two views (any strides, byte orders and
/// dtype pair). Throws Error{unsupported} for complex inputs.
template <class Kernel = kernels::Default>
Comparison compare(const TensorView& actual, const TensorView& expected, const CompareOptions& o = {}) {
  const detail::SqueezedView squeezed_a(actual, o.squeeze), squeezed_b(expected, o.squeeze);
  const TensorView &a = *squeezed_a, &b = *squeezed_b;
  Comparison c;
  c.metrics = o.metrics;
  if (!detail::start_comparison(c, a, b, o)) {
    if (c.validation == Validation::shape_unmatched) {  // the same elements, the callers' shapes
      c.actual = summarize<Kernel>(actual);
      c.expected = summarize<Kernel>(expected);
    }
    return c;
  }
  const Partial p = detail::accumulate_views<Kernel>(a, b, detail::kernel_params(c, o), o);
  detail::finish_comparison(c, a, b, actual.shape, expected.shape, p,
                            [](const TensorView& v, std::uint64_t i) { return element_as_double(v, i); });
  return c;
}

/// The metric set named by a comma-separated list (the CLI's --metrics): cosine, euclidean,
/// max_abs, max_rel, thousandths, mean_abs, mean_rel, rmse, statistics, and the sets all and
/// assert_close. A word with a leading '-' removes its metrics from those named before it
/// ("all,-mean_rel"); a list that begins with one starts from all ("-mean_rel,-rmse"). Throws
/// Error{invalid_argument} naming an unknown word, or when no metric is left.
inline MetricSet metric_set_from_names(const std::string& names) {
  static const std::pair<const char*, MetricSet> known[] = {
      {"cosine", metric::cosine},     {"euclidean", metric::euclidean}, {"max_abs", metric::max_abs},
      {"max_rel", metric::max_rel},   {"thousandths", metric::thousandths}, {"mean_abs", metric::mean_abs},
      {"mean_rel", metric::mean_rel}, {"rmse", metric::rmse},          {"statistics", metric::statistics},
      {"all", metric::all},           {"assert_close", metric::assert_close}};
  const auto removes_at = [&names](std::size_t pos) { return names.compare(pos, 1, "-") == 0; };
  MetricSet m = removes_at(0) ? metric::all : MetricSet{};
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t comma = std::min(names.find(',', start), names.size());
    const bool remove = removes_at(start);
    const std::string word = names.substr(start + remove, comma - start - remove);
    bool found = false;
    for (const auto& [name, set] : known)
      if (word == name) m = remove ? (m & ~set) : (m | set), found = true;
    if (!found)
      throw Error(ErrorCategory::invalid_argument,
                  "--metrics: unknown metric '" + word +
                      "' (cosine, euclidean, max_abs, max_rel, thousandths, mean_abs, mean_rel, rmse, statistics, "
                      "all, assert_close; a leading '-' removes one)");
    start = comma + 1;
  }
  if (m == MetricSet{}) throw Error(ErrorCategory::invalid_argument, "--metrics: '" + names + "' leaves no metric");
  return m;
}

/// compare() of the metric set M only: compare<metric::cosine | metric::max_abs>(a, b). The
/// kernel skips the parts of the pass no metric of M needs (the relative error, |a − b|, the
/// side sums); the other metrics have MetricStatus::not_requested. Same as setting
/// CompareOptions::metrics = M.
template <MetricSet M, class Kernel = kernels::Default>
Comparison compare(const TensorView& actual, const TensorView& expected, CompareOptions o = {}) {
  o.metrics = M;
  return compare<Kernel>(actual, expected, o);
}

/// Typed comparator over spans: compare<float, bfloat16>(a, b, n).
template <class TA, class TB, class Kernel = kernels::Default>
Comparison compare(const TA* a, const TB* b, std::size_t n, const CompareOptions& o = {}) {
  const Shape shape{static_cast<std::int64_t>(n)};
  return compare<Kernel>(TensorView(a, dtype_of<TA>(), shape), TensorView(b, dtype_of<TB>(), shape), o);
}

TD_NAMESPACE_END
