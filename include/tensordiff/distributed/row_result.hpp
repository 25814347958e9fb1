// tensordiff — one row's compare columns as JSON: what a process computes
// and process 0 (or `tensordiff merge`) puts into its table.
//
// Everything compute_tensor_row() sets travels: the six metrics with their
// status, messages, validation, read error, indices and extra errors, and for
// plain folders the dtype / shape / statistics taken from the files. Numbers
// round-trip exactly (shortest round-trip decimal; nan/inf as strings), so the
// merged table is byte-identical to a one-process run.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "../match/table.hpp"

TD_NAMESPACE_BEGIN
namespace distributed {
namespace detail {

inline nlohmann::json exact(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

inline double exact_of(const nlohmann::json& j, const char* field) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto s = j.get<std::string>();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  throw Error(ErrorCategory::format, std::string("row result: field '") + field + "' is not a number");
}

inline nlohmann::json item_json(const match::Item& it) {
  return {it.dtype, it.shape, exact(it.max.real), exact(it.min.real), exact(it.mean.real), exact(it.norm.real)};
}

inline void item_of(match::Item& it, const nlohmann::json& j) {
  if (!j.is_array() || j.size() != 6) throw Error(ErrorCategory::format, "row result: an item is not [dtype, shape, max, min, mean, norm]");
  it.dtype = j[0].get<std::string>();
  it.shape = j[1].get<std::string>();
  it.max = io::JsonScalar::of_real(exact_of(j[2], "max"));
  it.min = io::JsonScalar::of_real(exact_of(j[3], "min"));
  it.mean = io::JsonScalar::of_real(exact_of(j[4], "mean"));
  it.norm = io::JsonScalar::of_real(exact_of(j[5], "norm"));
}

}  // namespace detail

/// The compare columns of row `i` of `rc` (after compute_tensor_rows()).
inline nlohmann::json row_result(const match::RankComparison& rc, std::size_t i) {
  const match::Row& r = rc.rows[i];
  nlohmann::json m = nlohmann::json::array();
  for (const auto& x : r.metrics) m.push_back({detail::exact(x.value), static_cast<int>(x.status)});
  nlohmann::json j = {{"row", i},
                      {"metrics", std::move(m)},
                      {"messages", r.compare_messages},
                      {"validation", static_cast<int>(r.validation)},
                      {"read_error", r.data_file_error},
                      {"max_abs_index", r.max_abs_index},
                      {"max_rel_index", r.max_rel_index},
                      {"mean_abs_err", detail::exact(r.mean_abs_err)},
                      {"mean_rel_err", detail::exact(r.mean_rel_err)},
                      {"rmse", detail::exact(r.rmse)},
                      {"compared", r.compared}};
  if (rc.plain_folders && r.compared) {  // the table's dtype/shape/stats came from the files
    j["npu_item"] = detail::item_json(rc.npu_items[r.npu]);
    j["bench_item"] = detail::item_json(*rc.bench_item(r));
  }
  return j;
}

/// Puts a row_result() into row `i` of `rc` (the same run, prepared the same
/// way). Throws Error when `j` is not a row result for that row.
inline void apply_row_result(match::RankComparison& rc, std::size_t i, const nlohmann::json& j) {
  try {
    if (j.at("row").get<std::size_t>() != i)
      throw Error(ErrorCategory::format, "row result for row " + j.at("row").dump() + " where row " + std::to_string(i) + " was expected");
    match::Row& r = rc.rows.at(i);
    const auto& m = j.at("metrics");
    if (!m.is_array() || m.size() != 6) throw Error(ErrorCategory::format, "row result: 'metrics' is not six [value, status] pairs");
    for (int k = 0; k < 6; ++k) {
      const int st = m[k].at(1).get<int>();
      if (st < 0 || st > static_cast<int>(MetricStatus::nan)) throw Error(ErrorCategory::format, "row result: bad metric status");
      r.metrics[k] = {detail::exact_of(m[k].at(0), "metrics"), static_cast<MetricStatus>(st)};
    }
    r.compare_messages = j.at("messages").get<std::vector<std::string>>();
    const int v = j.at("validation").get<int>();
    if (v < 0 || v > static_cast<int>(Validation::nonfinite_mismatch)) throw Error(ErrorCategory::format, "row result: bad validation");
    r.validation = static_cast<Validation>(v);
    r.data_file_error = j.at("read_error").get<std::string>();
    r.max_abs_index = j.at("max_abs_index").get<std::uint64_t>();
    r.max_rel_index = j.at("max_rel_index").get<std::uint64_t>();
    r.mean_abs_err = detail::exact_of(j.at("mean_abs_err"), "mean_abs_err");
    r.mean_rel_err = detail::exact_of(j.at("mean_rel_err"), "mean_rel_err");
    r.rmse = detail::exact_of(j.at("rmse"), "rmse");
    r.compared = j.at("compared").get<bool>();
    if (j.contains("npu_item")) {
      const match::Item* b = rc.bench_item(r);
      if (!b) throw Error(ErrorCategory::format, "row result: items for an unmatched row");
      detail::item_of(rc.npu_items[r.npu], j.at("npu_item"));
      detail::item_of(rc.bench_items[static_cast<std::size_t>(r.bench)], j.at("bench_item"));
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCategory::format, std::string("malformed row result: ") + e.what());
  } catch (const std::out_of_range&) {
    throw Error(ErrorCategory::format, "row result for row " + std::to_string(i) + ", which the run does not have");
  }
}

}  // namespace distributed
TD_NAMESPACE_END
