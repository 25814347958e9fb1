// tensordiff — JSON forms of a dump comparison's analyses: the first
// divergence, the per-module roll-up and a summary. Needs nlohmann/json.
#pragma once
#include <cmath>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "../match/compare_dumps.hpp"

TD_NAMESPACE_BEGIN
namespace report {

namespace detail {
inline nlohmann::ordered_json num_or_null(double x) {
  if (std::isnan(x)) return nullptr;
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}
inline nlohmann::ordered_json opt_json(const std::optional<std::string>& x) {
  return x ? nlohmann::ordered_json(*x) : nlohmann::ordered_json(nullptr);
}
}  // namespace detail

namespace detail {
/// The divergence's entry; when no entry's outputs fail while its inputs pass (say the first
/// failing row is an unmatched input), the entry of the first failing item. Null when none.
inline nlohmann::ordered_json named_entry(const match::FirstDivergence& f) {
  const std::string& e = f.entry.empty() ? f.first_item_entry : f.entry;
  return e.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e);
}
}  // namespace detail

/// {step, rank, entry, entry_index, outputs, tripped, messages, min_cosine, max_abs_err, max_rel_err, stack}
inline nlohmann::ordered_json first_divergence_json(const match::RankComparison& rc, const match::FirstDivergence& f) {
  nlohmann::ordered_json j;
  j["step"] = f.step.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(f.step);
  j["rank"] = f.rank >= 0 ? nlohmann::ordered_json(f.rank) : nlohmann::ordered_json(nullptr);
  j["entry"] = detail::named_entry(f);
  j["entry_index"] = f.entry_index;
  nlohmann::ordered_json outs = nlohmann::ordered_json::array();
  for (std::size_t i : f.failing_rows) outs.push_back(rc.npu_items[rc.rows[i].npu].name);
  j["outputs"] = outs;
  j["tripped"] = f.tripped;
  j["messages"] = f.messages;
  j["min_cosine"] = detail::num_or_null(f.min_cosine);
  j["max_abs_err"] = detail::num_or_null(f.max_abs_err);
  j["max_rel_err"] = detail::num_or_null(f.max_rel_err);
  j["stack"] = f.stack;
  j["origin_module"] = detail::opt_json(f.origin_module);
  j["origin_api"] = detail::opt_json(f.origin_api);
  j["first_item"] = f.first_item;
  j["first_module"] = detail::opt_json(f.first_module);
  j["first_api"] = detail::opt_json(f.first_api);
  return j;
}

/// One object per module-tree node: {node, parent, depth, rows, failing, min_cosine, max_abs_err, max_rel_err}.
inline nlohmann::ordered_json rollup_json(const std::vector<match::ModuleRollup>& nodes) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& n : nodes) {
    nlohmann::ordered_json j;
    j["node"] = n.node;
    j["parent"] = n.parent ? nlohmann::ordered_json(*n.parent) : nlohmann::ordered_json(nullptr);
    j["depth"] = n.depth;
    j["rows"] = n.rows;
    j["failing"] = n.failing;
    j["min_cosine"] = detail::num_or_null(n.min_cosine);
    j["max_abs_err"] = detail::num_or_null(n.max_abs_err);
    j["max_rel_err"] = detail::num_or_null(n.max_rel_err);
    a.push_back(std::move(j));
  }
  return a;
}

/// The whole comparison's summary: mode, per-rank counts, first divergence.
inline nlohmann::ordered_json summary_json(const match::DumpComparison& r) {
  nlohmann::ordered_json j;
  j["mode"] = match::to_string(r.mode);
  j["compat"] = r.compat == match::Compat::msprobe ? "msprobe" : "tensordiff";
  nlohmann::ordered_json ranks = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < r.ranks.size(); ++k) {
    const auto& rc = r.ranks[k];
    std::size_t pass = 0, warn = 0, err = 0, unmatched = 0;
    for (const auto& row : rc.rows) {
      if (!row.matched()) ++unmatched;
      if (row.result == "error" || row.result == "No" || row.result == "Different") ++err;
      else if (row.result == "warning") ++warn;
      else ++pass;
    }
    nlohmann::ordered_json x;
    x["label"] = rc.label;
    x["rows"] = rc.rows.size();
    x["pass"] = pass;
    x["warning"] = warn;
    x["error"] = err;
    x["unmatched"] = unmatched;
    x["bench_only"] = rc.bench_only.size();
    x["first_divergence"] = r.divergences[k] ? first_divergence_json(rc, *r.divergences[k]) : nlohmann::ordered_json(nullptr);
    ranks.push_back(std::move(x));
  }
  j["ranks"] = ranks;
  if (r.first_divergence) {
    j["first_divergence"] = {{"step", r.first_divergence->step},
                             {"rank", r.first_divergence->rank},
                             {"entry", detail::named_entry(*r.first_divergence)},
                             {"origin_module", detail::opt_json(r.first_divergence->origin_module)},
                             {"origin_api", detail::opt_json(r.first_divergence->origin_api)},
                             {"first_item", r.first_divergence->first_item}};
  } else {
    j["first_divergence"] = nullptr;
  }
  return j;
}

}  // namespace report
TD_NAMESPACE_END
