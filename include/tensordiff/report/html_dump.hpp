// tensordiff — the HTML report of a dump comparison (adapter from
// match::DumpComparison to report::HtmlReport).
#pragma once
#include <map>

#include "../match/compare_dumps.hpp"
#include "html.hpp"

TD_NAMESPACE_BEGIN
namespace report {

namespace detail {
/// pass / warning / error / unmatched, whatever rule set produced the row.
inline std::string html_status(const match::Row& r) {
  if (!r.matched()) return "unmatched";
  if (r.result == "pass" || r.result == "Yes") return "pass";
  if (r.result == "warning") return "warning";
  return r.result == "error" || r.result == "No" || r.result == "Different" ? "error" : "warning";
}

inline std::optional<double> metric_opt(const Metric& m) {
  return m.has_value() ? std::optional<double>(m.value) : std::nullopt;
}

inline const char* mode_name(match::Mode m) {
  switch (m) {
    case match::Mode::tensor: return "tensor";
    case match::Mode::statistics: return "statistics";
    case match::Mode::md5: return "md5";
  }
  return "";
}

inline std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

inline HtmlModule to_html_module(const std::vector<match::ModuleRollup>& nodes, std::size_t i,
                                 const std::multimap<std::string, std::size_t>& children, int depth = 0) {
  const auto& n = nodes[i];
  HtmlModule m;
  m.name = n.node;
  if (!std::isnan(n.min_cosine)) m.min_cosine = n.min_cosine;
  if (!std::isnan(n.max_abs_err)) m.max_abs_err = n.max_abs_err;
  m.status = n.failing ? "error" : "pass";
  if (depth >= 200) return m;  // a hostile construct.json must not exhaust the stack
  auto range = children.equal_range(n.node);
  for (auto it = range.first; it != range.second; ++it) m.children.push_back(to_html_module(nodes, it->second, children, depth + 1));
  return m;
}
}  // namespace detail

/// The report of one rank of a dump comparison.
inline HtmlReport html_report(const match::DumpComparison& r, std::size_t rank_index, const std::string& npu_path,
                              const std::string& bench_path) {
  const match::RankComparison& rc = r.ranks.at(rank_index);
  HtmlReport h;
  h.title = "tensordiff compare" + (rc.label.empty() ? std::string() : " — " + rc.label);
  h.npu_path = npu_path;
  h.bench_path = bench_path;
  h.mode = detail::mode_name(rc.mode);
  for (const match::Row& row : rc.rows) {
    const match::Item& n = rc.npu_item(row);
    const match::Item* b = rc.bench_item(row);
    HtmlRow out;
    out.name = n.name;
    out.bench_name = b ? b->name : "";
    out.status = detail::html_status(row);
    out.npu_dtype = n.dtype;
    out.bench_dtype = b ? b->dtype : "";
    out.npu_shape = n.shape;
    out.bench_shape = b ? b->shape : "";
    if (rc.mode == match::Mode::tensor) {
      out.cosine = detail::metric_opt(row.metrics[0]);
      out.max_abs_err = detail::metric_opt(row.metrics[2]);
      out.max_rel_err = detail::metric_opt(row.metrics[3]);
    } else if (rc.mode == match::Mode::statistics && row.stat_diff[0].kind == match::Cell::Kind::real) {
      out.max_abs_err = std::fabs(row.stat_diff[0].real);  // |Max diff|
    }
    out.message = detail::join(row.result_messages, " ");
    if (!row.matched() && !row.match_reason.empty()) out.message = row.match_reason;
    if (rc.npu_dump && rc.npu_dump->stack)
      if (const auto* lines = rc.npu_dump->stack->find(n.entry)) out.stack = *lines;
    h.rows.push_back(std::move(out));
  }
  if (rank_index < r.divergences.size() && r.divergences[rank_index]) {
    const match::FirstDivergence& f = *r.divergences[rank_index];
    h.first_divergence_name = f.entry;
    if (!f.failing_rows.empty()) h.first_divergence_row = f.failing_rows.front();
  }
  if (rank_index < r.rollups.size()) {
    const auto& nodes = r.rollups[rank_index];
    std::multimap<std::string, std::size_t> children;
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i].parent) children.emplace(*nodes[i].parent, i);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      if (!nodes[i].parent) h.modules.push_back(detail::to_html_module(nodes, i, children));
  }
  for (std::size_t i : rc.bench_only) h.bench_only.push_back(rc.bench_items[i].name);
  return h;
}

}  // namespace report
TD_NAMESPACE_END
