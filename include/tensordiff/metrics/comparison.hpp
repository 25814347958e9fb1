// tensordiff — Comparison: the result of compare().
#pragma once
#include <limits>
#include <string>
#include <vector>

#include "../kernels/partial.hpp"
#include "summary.hpp"

TD_NAMESPACE_BEGIN

/// Why a metric has no number — msprobe's cell values, kept as a status so a
/// writer can print them and code can test them.
enum class MetricStatus : std::uint8_t {
  ok,               ///< value holds the number
  unsupported,      ///< "unsupported": empty, 0-d (some metrics), length-1 cosine
  shape_unmatched,  ///< "shape unmatched"
  not_available,    ///< "N/A": nan/inf positions differ
  nan,              ///< "Nan": the value is NaN or a norm is zero on one side
  not_requested,    ///< not in the metric set of the call (CompareOptions::metrics)
};

/// msprobe's spelling of a status ("" for ok).
inline const char* msprobe_spelling(MetricStatus s) noexcept {
  switch (s) {
    case MetricStatus::ok: return "";
    case MetricStatus::unsupported: return "unsupported";
    case MetricStatus::shape_unmatched: return "shape unmatched";
    case MetricStatus::not_available: return "N/A";
    case MetricStatus::nan: return "Nan";
    case MetricStatus::not_requested: return "not requested";
  }
  return "";
}

/// A metric value or the reason there is none.
struct Metric {
  double value = std::numeric_limits<double>::quiet_NaN();  ///< meaningful when has_value()
  MetricStatus status = MetricStatus::unsupported;          ///< ok, or why there is no value

  bool has_value() const noexcept { return status == MetricStatus::ok; }  ///< status is ok
  static Metric of(double v) { return {v, MetricStatus::ok}; }           ///< a value
  /// No value, for reason `s`.
  static Metric none(MetricStatus s) { return {std::numeric_limits<double>::quiet_NaN(), s}; }
};

/// What the validation chain (msprobe's ValidateTensor) decided.
enum class Validation : std::uint8_t {
  /// The pair passed the validation chain: all six metrics are computed.
  ok,
  empty,               ///< a side has no elements
  shape_unmatched,     ///< shapes differ (after squeeze, if enabled)
  zero_dim,            ///< 0-d: only MaxAbsErr / MaxRelativeErr computed
  nonfinite_mismatch,  ///< nan/inf positions differ: all six metrics N/A
};

/// Everything compare() measures. The six msprobe metrics are `cosine` …
/// `five_thousandths_ratio`; the rest are extras.
struct Comparison {
  Validation validation = Validation::ok;  ///< which metrics exist (msprobe's validation chain)
  std::vector<std::string> messages;  ///< msprobe's messages, in the order it emits them

  std::uint64_t numel = 0;     ///< elements compared
  Metric cosine;               ///< cosine similarity (float64-accurate)
  Metric euclidean_distance;   ///< ‖a − b‖₂
  Metric max_abs_err;          ///< max |a − b|
  Metric max_rel_err;          ///< max |a − b| / |b| (msprobe's definition, eps at bench zeros)
  Metric one_thousandth_ratio;    ///< count(rel < thresholds[0]) / n
  Metric five_thousandths_ratio;  ///< count(rel < thresholds[1]) / n
  Metric mean_abs_err;  ///< mean |a − b|
  Metric mean_rel_err;  ///< mean relative error
  Metric rmse;          ///< root mean square of a − b

  std::uint64_t max_abs_index = no_index;  ///< C-order flat index
  std::uint64_t max_rel_index = no_index;  ///< C-order flat index
  ///@{ The two values where the maximum errors are.
  double actual_at_max_abs = 0, expected_at_max_abs = 0;
  double actual_at_max_rel = 0, expected_at_max_rel = 0;
  ///@}

  bool nonfinite_positions_match = true;              ///< nan/inf at the same positions on both sides
  std::uint64_t nonfinite_mismatch_count = 0;         ///< positions where they differ
  std::uint64_t first_nonfinite_mismatch = no_index;  ///< the first such position (C order)
  bool dtypes_match = true;                           ///< both sides have the same dtype
  double zero_bench_eps = 0;  ///< the eps the relative error used at bench zeros
  bool relative_error_float32 = true;  ///< the relative error was computed in float32 (else float64)

  ///@{ Per-side statistics over the raw values, with the callers' shapes.
  Summary actual, expected;
  ///@}
  /// The metrics computed (CompareOptions::metrics); the others have status not_requested.
  /// Without metric::statistics (and metric::cosine) the summaries' extremes and sums may be
  /// skipped by the kernel: only their element and nan / inf counts are then meaningful.
  MetricSet metrics = metric::all;
  Partial partial;  ///< the raw accumulator (for merging across tensors)
};

TD_NAMESPACE_END
