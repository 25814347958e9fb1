// tensordiff — the HTML report of a dump comparison: adapter from
// match::DumpComparison (every rank of every step) to report::HtmlReport.
//
//   const td::match::DumpComparison r = td::match::run_compare(req);
//   td::report::write_html(td::report::html_report(r, "npu_dump", "gpu_dump"), "out/report.html");
#pragma once
#include <cmath>
#include <limits>
#include <unordered_map>

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

/// Order of badness for a module's roll-up: pass < unmatched < warning < error.
inline int html_severity(const std::string& status) {
  return status == "error" ? 3 : status == "warning" ? 2 : status == "unmatched" ? 1 : 0;
}

inline std::optional<double> metric_opt(const Metric& m) {
  return m.has_value() ? std::optional<double>(m.value) : std::nullopt;
}

/// A statistics-mode difference cell as a number: msprobe writes equal values
/// as the text "0" and non-finite ones as text; percentages become fractions.
inline std::optional<double> stat_number(const match::Cell& c) {
  using K = match::Cell::Kind;
  if (c.kind == K::real) return c.style == match::Cell::Style::percent ? c.real / 100 : c.real;
  if (c.kind == K::integer) return static_cast<double>(c.integer);
  if (c.kind != K::text) return std::nullopt;
  if (c.text == "0") return 0.0;
  if (c.text == "inf" || c.text == "-inf") return std::numeric_limits<double>::infinity();
  if (c.text == "Nan" || c.text == "nan") return std::numeric_limits<double>::quiet_NaN();
  return std::nullopt;  // N/A, Diff
}

inline std::optional<double> finite_or_none(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }

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

/// The roll-up nodes of one rank as a flat module list; returns name → index.
inline std::unordered_map<std::string, std::size_t> html_modules(const std::vector<match::ModuleRollup>& nodes,
                                                                 HtmlRun& run) {
  std::unordered_map<std::string, std::size_t> at;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    at.emplace(nodes[i].node, i);
    run.modules.push_back({nodes[i].node, std::nullopt, finite_or_none(nodes[i].min_cosine),
                           finite_or_none(nodes[i].max_abs_err), "pass"});
  }
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].parent) {
      auto p = at.find(*nodes[i].parent);
      if (p != at.end() && p->second != i) run.modules[i].parent = p->second;
    }
  return at;
}

/// Raises the status of node i and its ancestors to `status`. Stops at the
/// first node already as bad, so a whole rank costs O(nodes) and a cycle in a
/// hostile construct.json ends.
inline void raise_status(HtmlRun& run, std::size_t i, const std::string& status) {
  const int sev = html_severity(status);
  for (std::optional<std::size_t> at = i; at && html_severity(run.modules[*at].status) < sev; at = run.modules[*at].parent)
    run.modules[*at].status = status;
}
}  // namespace detail

/// One rank (of one step) of a dump comparison: rows, module tree, stacks, first divergence.
inline HtmlRun html_run(const match::DumpComparison& r, std::size_t rank_index) {
  const match::RankComparison& rc = r.ranks.at(rank_index);
  HtmlRun run;
  run.step = rc.step;
  run.rank = rc.rank;
  run.label = rc.label;
  const auto node_of = rank_index < r.rollups.size() ? detail::html_modules(r.rollups[rank_index], run)
                                                     : std::unordered_map<std::string, std::size_t>{};
  // stack.json lists one stack per entry; many entries share the same lines
  std::unordered_map<const std::vector<std::string>*, std::size_t> stack_of;
  std::unordered_map<std::string, std::size_t> stack_by_text;
  run.rows.reserve(rc.rows.size());
  for (const match::Row& row : rc.rows) {
    const match::Item& n = rc.npu_item(row);
    const match::Item* b = rc.bench_item(row);
    HtmlRow out;
    out.name = n.name;
    out.bench_name = b ? b->name : "";
    out.entry = n.entry;
    out.status = detail::html_status(row);
    out.npu_dtype = n.dtype;
    out.bench_dtype = b ? b->dtype : "";
    out.npu_shape = n.shape;
    out.bench_shape = b ? b->shape : "";
    if (rc.mode == match::Mode::tensor) {
      out.cosine = detail::metric_opt(row.metrics[match::cosine]);
      out.max_abs_err = detail::metric_opt(row.metrics[match::max_abs_err]);
      out.max_rel_err = detail::metric_opt(row.metrics[match::max_rel_err]);
    } else if (rc.mode == match::Mode::statistics) {
      out.max_abs_err = detail::stat_number(row.stat_diff[0]);  // |Max diff|
      if (out.max_abs_err) out.max_abs_err = std::fabs(*out.max_abs_err);
      out.max_rel_err = detail::stat_number(row.stat_rel[3]);  // NormRelativeErr, what msprobe's rules read
    }
    out.message = detail::join(row.result_messages, " ");
    if (!row.matched() && !row.match_reason.empty()) out.message = row.match_reason;
    if (rc.npu_dump && rc.npu_dump->stack)
      if (const auto* lines = rc.npu_dump->stack->find(n.entry)) {
        auto it = stack_of.find(lines);
        if (it == stack_of.end()) {
          auto [t, added] = stack_by_text.try_emplace(detail::join(*lines, "\n"), run.stacks.size());
          if (added) run.stacks.push_back(*lines);
          it = stack_of.emplace(lines, t->second).first;
        }
        out.stack = it->second;
      }
    auto node = node_of.find(n.entry);
    if (node != node_of.end()) detail::raise_status(run, node->second, out.status);
    run.rows.push_back(std::move(out));
  }
  if (rank_index < r.divergences.size() && r.divergences[rank_index]) {
    const match::FirstDivergence& f = *r.divergences[rank_index];
    run.first_divergence_name = f.entry.empty() ? f.first_item_entry : f.entry;
    run.first_divergence_origin = f.origin_module.value_or("");
    run.first_divergence_messages = f.messages;
    if (!f.failing_rows.empty()) {
      run.first_divergence_row = f.failing_rows.front();
    } else {
      for (std::size_t i = 0; i < run.rows.size() && !run.first_divergence_row; ++i)
        if (run.rows[i].name == f.first_item) run.first_divergence_row = i;
    }
  }
  for (std::size_t i : rc.bench_only) run.bench_only.push_back(rc.bench_items[i].name);
  return run;
}

/// The report of a whole comparison: every rank of every step in one page.
inline HtmlReport html_report(const match::DumpComparison& r, const std::string& npu_path, const std::string& bench_path) {
  HtmlReport h;
  h.npu_path = npu_path;
  h.bench_path = bench_path;
  h.mode = detail::mode_name(r.mode);
  for (std::size_t k = 0; k < r.ranks.size(); ++k) {
    h.runs.push_back(html_run(r, k));
    const auto& f = r.first_divergence;
    if (f && !h.first_divergence_run && f->step == r.ranks[k].step && f->rank == r.ranks[k].rank &&
        f->label == r.ranks[k].label && h.runs.back().first_divergence_row)
      h.first_divergence_run = k;
  }
  return h;
}

/// The report of one rank (of one step) only.
inline HtmlReport html_report(const match::DumpComparison& r, std::size_t rank_index, const std::string& npu_path,
                              const std::string& bench_path) {
  HtmlReport h;
  h.title = "tensordiff compare" + (r.ranks.at(rank_index).label.empty() ? std::string() : " — " + r.ranks[rank_index].label);
  h.npu_path = npu_path;
  h.bench_path = bench_path;
  h.mode = detail::mode_name(r.mode);
  h.runs.push_back(html_run(r, rank_index));
  if (h.runs.front().first_divergence_row) h.first_divergence_run = 0;
  return h;
}

}  // namespace report
TD_NAMESPACE_END
