// tensordiff — JSON forms of Summary and Comparison (the CLI's --json output
// and the machine-readable reports). Needs nlohmann/json (tensordiff::json).
#pragma once
#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "../metrics/comparison.hpp"
#include "../metrics/crc32.hpp"
#include "../metrics/md5.hpp"

TD_NAMESPACE_BEGIN
namespace report {

/// A double as JSON: a number, or the strings "nan", "inf", "-inf" (JSON has
/// no non-finite numbers).
inline nlohmann::json number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

/// number(), or null when the tensor is empty (no min/max/mean exist).
inline nlohmann::json number_or_null(double x, bool present) { return present ? number(x) : nlohmann::json(nullptr); }

/// A shape as a JSON array of extents.
inline nlohmann::json shape_json(const Shape& s) {
  nlohmann::json a = nlohmann::json::array();
  for (auto d : s) a.push_back(d);
  return a;
}

/// The stat object of one tensor: exactly the keys of `tensordiff stat --json`.
inline nlohmann::json summary_json(const Summary& s, const TensorView& v, const std::string& path) {
  const bool any = s.numel > 0;
  const bool any_finite = s.numel > s.stats.nonfinite_count();
  nlohmann::json j;
  j["path"] = path;
  j["dtype"] = dtype_name(s.dtype);
  j["shape"] = shape_json(s.shape);
  j["numel"] = s.numel;
  j["min"] = number_or_null(s.min, any);
  j["max"] = number_or_null(s.max, any);
  j["finite_min"] = number_or_null(s.finite_min, any_finite);
  j["finite_max"] = number_or_null(s.finite_max, any_finite);
  j["mean"] = number_or_null(s.mean, any);
  j["sum"] = number(s.sum);
  j["l2norm"] = number(s.l2norm);
  j["nan_count"] = s.nan_count;
  j["inf_count"] = s.inf_count();
  j["md5"] = md5_hex(v);
  j["crc32"] = crc32_hex(v);
  j["overflow"] = {{"nan_inf", s.has_nan_or_inf}, {"float16", s.overflows_float16}, {"bfloat16", s.overflows_bfloat16}};
  return j;
}

/// The stat object of any tensor: summary_json() for real dtypes; for complex
/// ones (which summarize() rejects) the statistics are null and only the
/// hashes, dtype and shape are given.
inline nlohmann::json stat_json(const TensorView& v, const std::string& path) {
  if (!is_complex(v.dtype)) return summary_json(summarize(v), v, path);
  Summary s;
  s.dtype = v.dtype;
  s.shape = v.shape;
  nlohmann::json j = summary_json(s, v, path);
  j["numel"] = v.numel();
  for (const char* k : {"min", "max", "finite_min", "finite_max", "mean", "sum", "l2norm", "nan_count", "inf_count"})
    j[k] = nullptr;
  j["overflow"] = nullptr;
  return j;
}

/// A metric: its number, or msprobe's word for why there is none.
inline nlohmann::json metric_json(const Metric& m) {
  return m.has_value() ? number(m.value) : nlohmann::json(msprobe_spelling(m.status));
}

/// The metrics of a Comparison (without the per-side stat objects).
inline nlohmann::json comparison_json(const Comparison& c) {
  nlohmann::json j;
  j["numel"] = c.numel;
  j["cosine"] = metric_json(c.cosine);
  j["euc_dist"] = metric_json(c.euclidean_distance);
  j["max_abs_err"] = metric_json(c.max_abs_err);
  j["max_abs_err_index"] = c.max_abs_index == no_index ? nlohmann::json(nullptr) : nlohmann::json(c.max_abs_index);
  j["max_abs_err_values"] = {number(c.actual_at_max_abs), number(c.expected_at_max_abs)};
  j["max_rel_err"] = metric_json(c.max_rel_err);
  j["max_rel_err_index"] = c.max_rel_index == no_index ? nlohmann::json(nullptr) : nlohmann::json(c.max_rel_index);
  j["max_rel_err_values"] = {number(c.actual_at_max_rel), number(c.expected_at_max_rel)};
  j["mean_abs_err"] = metric_json(c.mean_abs_err);
  j["mean_rel_err"] = metric_json(c.mean_rel_err);
  j["rmse"] = metric_json(c.rmse);
  j["one_thousandth_err_ratio"] = metric_json(c.one_thousandth_ratio);
  j["five_thousandths_err_ratio"] = metric_json(c.five_thousandths_ratio);
  j["nan_inf_positions_match"] = c.nonfinite_positions_match;
  j["nan_inf_mismatch_count"] = c.nonfinite_mismatch_count;
  j["dtypes_match"] = c.dtypes_match;
  j["zero_bench_eps"] = c.zero_bench_eps;
  j["messages"] = c.messages;
  return j;
}

}  // namespace report
TD_NAMESPACE_END
