// tensordiff — where a dump comparison goes wrong: the first divergence and a
// per-module roll-up along construct.json's tree.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rules.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// What makes a row "fail" for the divergence search.
struct DivergenceOptions {
  /// What counts as a failing row.
  enum class Criterion : std::uint8_t {
    result,          ///< the row's Result is error (or warning, see warnings_fail): msprobe's rules
    any_difference,  ///< the two sides are not identical (tensor values, statistics, CRC-32, dtype or shape)
  };
  /// msprobe's result column (the default), or any difference at all (to find where two runs
  /// that should be bitwise identical first part).
  Criterion criterion = Criterion::result;
  bool warnings_fail = true;  ///< result criterion: warnings count (CosineWarn / RelativeWarn mark drift)
  /// any_difference, statistics mode: numbers within this relative tolerance
  /// are equal (stats of a view and of its contiguous copy differ in the last bits).
  double stat_rtol = 0;
};

/// Where two runs part: the first API/module in execution order whose outputs
/// fail while its inputs pass, plus where the difference originates.
struct FirstDivergence {
  /// The step of the compared rank (RankComparison::step), "" for a single step.
  std::string step;
  /// The rank (RankComparison::rank), -1 when the folder is not a rank folder.
  int rank = -1;
  std::string label;                ///< the rank's label
  std::string entry;                ///< first entry whose outputs fail while its inputs pass ("" if none)
  std::size_t entry_index = 0;      ///< position in the NPU dump
  std::vector<std::size_t> failing_rows;  ///< indices into RankComparison::rows (the outputs that failed)
  std::vector<std::string> tripped;       ///< rule names ("OneThousandth", "CosineWarn", "Difference", ...)
  std::vector<std::string> messages;      ///< their messages
  std::vector<std::string> stack;         ///< stack.json lines, when present
  /// Smallest cosine among the failing_rows (tensor mode); NaN when none has one.
  double min_cosine = std::numeric_limits<double>::quiet_NaN();
  /// Largest absolute error among the failing_rows: MaxAbsErr in tensor mode, |Max diff| in
  /// statistics mode; NaN when none has one.
  double max_abs_err = std::numeric_limits<double>::quiet_NaN();
  /// Largest relative error among the failing_rows, as a fraction: MaxRelativeErr in tensor
  /// mode, NormRelativeErr / 100 in statistics mode; NaN when none has one.
  double max_rel_err = std::numeric_limits<double>::quiet_NaN();
  /// The innermost forward module call (deepest in construct.json) whose
  /// outputs fail while its inputs pass: where the error starts.
  std::optional<std::string> origin_module;
  /// The first forward API call whose outputs fail while its inputs pass.
  std::optional<std::string> origin_api;
  std::string first_item;  ///< the first failing row of any kind, in dump order
  /// The entry that first_item belongs to.
  std::string first_item_entry;
  ///@{
  /// The first module entry and the first API entry with a failing row of any kind.
  std::optional<std::string> first_module, first_api;  ///< first module / API entry with a failing row
  ///@}
};

namespace detail {
inline bool is_module_entry(const std::string& e) { return e.rfind("Module.", 0) == 0 || e.rfind("Cell.", 0) == 0; }

inline bool row_differs(const RankComparison& rc, const Row& r, double stat_rtol = 0) {
  const Item& n = rc.npu_items[r.npu];
  if (r.gated_bench >= 0) return true;  // same name, refused by the dtype gate: the dtypes differ
  const Item* b = rc.bench_item(r);
  if (!b) return false;  // unmatched rows are reported as such, not as divergence
  if (n.dtype != b->dtype || n.shape != b->shape) return true;
  auto same = [&](const io::JsonScalar& x, const io::JsonScalar& y) {
    if (csv_text(stat_cell(x)) == csv_text(stat_cell(y))) return true;
    const auto a = x.as_double(), c = y.as_double();
    return stat_rtol > 0 && x.is_number() && y.is_number() && std::isfinite(*a) && std::isfinite(*c) &&
           std::fabs(*a - *c) <= stat_rtol * std::max(std::fabs(*a), std::fabs(*c));
  };
  switch (rc.mode) {
    case Mode::tensor:
      if (!r.compared) return false;
      if (r.validation == Validation::shape_unmatched || r.validation == Validation::nonfinite_mismatch) return true;
      return r.metrics[max_abs_err].has_value() && r.metrics[max_abs_err].value != 0;
    case Mode::statistics: return !same(n.max, b->max) || !same(n.min, b->min) || !same(n.mean, b->mean) || !same(n.norm, b->norm);
    case Mode::md5: return n.md5 != b->md5;
  }
  return false;
}

inline bool row_fails(const RankComparison& rc, const Row& r, const DivergenceOptions& o) {
  if (o.criterion == DivergenceOptions::Criterion::any_difference) return row_differs(rc, r, o.stat_rtol);
  if (r.result == "error" || r.result == "No" || r.result == "Different") return true;
  if (r.result != "warning" || !o.warnings_fail) return false;
  for (const auto& t : r.tripped)
    if (t != "Unmatched") return true;
  return false;
}

inline void fold_min(double& acc, double v) {
  if (std::isnan(v)) return;
  acc = std::isnan(acc) ? v : std::min(acc, v);
}
inline void fold_max(double& acc, double v) {
  if (std::isnan(v)) return;
  acc = std::isnan(acc) ? v : std::max(acc, v);
}

/// (cosine, abs error, rel error) of a row, whatever the mode.
inline void row_errors(const RankComparison& rc, const Row& r, double& cos, double& abs_err, double& rel_err) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  cos = abs_err = rel_err = nan;
  if (rc.mode == Mode::tensor) {
    if (r.metrics[cosine].has_value()) cos = r.metrics[cosine].value;
    if (r.metrics[max_abs_err].has_value()) abs_err = r.metrics[max_abs_err].value;
    if (r.metrics[max_rel_err].has_value()) rel_err = r.metrics[max_rel_err].value;
  } else if (rc.mode == Mode::statistics && r.matched()) {
    const Cell& d = r.stat_diff[0];
    if (d.kind == Cell::Kind::real) abs_err = std::fabs(d.real);
    else if (d.kind == Cell::Kind::text && d.text == "0" && rc.npu_items[r.npu].max.is_number()) abs_err = 0;
    if (auto f = percent_fraction(r.stat_rel[3])) rel_err = *f;
  }
}
}  // namespace detail

/// The first entry (NPU dump order) with a failing output row and no failing
/// tensor input row, the origin module / API, and the first failing row of any kind.
/// nullopt when no row fails.
inline std::optional<FirstDivergence> find_first_divergence(const RankComparison& rc, const DivergenceOptions& o = {}) {
  std::optional<FirstDivergence> out;
  auto depth_of = [&](const std::string& e) {
    if (!rc.npu_dump || !rc.npu_dump->construct) return 0;
    return static_cast<int>(std::min<std::size_t>(rc.npu_dump->construct->depth(e), 10000));  // precomputed: O(log n)
  };
  int origin_depth = -1;
  std::size_t g0 = 0;
  while (g0 < rc.rows.size()) {
    std::size_t g1 = g0;
    const std::size_t entry = rc.npu_items[rc.rows[g0].npu].entry_index;
    while (g1 < rc.rows.size() && rc.npu_items[rc.rows[g1].npu].entry_index == entry) ++g1;
    const std::string ename = rc.npu_items[rc.rows[g0].npu].entry;
    bool input_fails = false;
    std::vector<std::size_t> failing;
    std::optional<std::size_t> first_failing_row;
    for (std::size_t i = g0; i < g1; ++i) {
      const Item& item = rc.npu_items[rc.rows[i].npu];
      const bool is_out = item.is_output();
      const bool fails = detail::row_fails(rc, rc.rows[i], o);
      if (fails && !first_failing_row) first_failing_row = i;
      // Only tensor inputs decide whether the inputs pass: a call whose scalar
      // arguments differ (dtype=..., p=...) is where the divergence starts.
      const bool tensor = item.leaf == nullptr || item.leaf->kind == io::DumpLeaf::Kind::tensor;
      if (fails && !is_out && tensor) input_fails = true;
      if (fails && is_out) failing.push_back(i);
    }
    if (first_failing_row) {
      if (!out) out.emplace();
      if (out->first_item.empty()) {
        out->first_item = rc.npu_items[rc.rows[*first_failing_row].npu].name;
        out->first_item_entry = ename;
      }
      if (detail::is_module_entry(ename)) {
        if (!out->first_module) out->first_module = ename;
      } else if (!out->first_api) {
        out->first_api = ename;
      }
    }
    if (!failing.empty() && !input_fails) {
      FirstDivergence& f = *out;
      // Origins are searched among forward calls: a backward call's inputs
      // (gradients) can agree while its saved forward activations do not.
      if (ename.find(".forward") == std::string::npos) {
      } else if (detail::is_module_entry(ename)) {
        const int d = depth_of(ename);
        if (d > origin_depth) origin_depth = d, f.origin_module = ename;
      } else if (!f.origin_api) {
        f.origin_api = ename;
      }
      if (f.entry.empty()) {
        f.entry = ename;
        f.entry_index = entry;
        f.failing_rows = failing;
        for (std::size_t i : failing) {
          const Row& r = rc.rows[i];
          if (o.criterion == DivergenceOptions::Criterion::any_difference) f.tripped.push_back("Difference");
          else
            for (const auto& t : r.tripped) f.tripped.push_back(t);
          for (const auto& m : r.result_messages)
            if (m.rfind("info: ", 0) != 0) f.messages.push_back(m);
          double c, a, e;
          detail::row_errors(rc, r, c, a, e);
          detail::fold_min(f.min_cosine, c);
          detail::fold_max(f.max_abs_err, a);
          detail::fold_max(f.max_rel_err, e);
        }
        if (rc.npu_dump && rc.npu_dump->stack)
          if (const auto* st = rc.npu_dump->stack->find(f.entry)) f.stack = *st;
      }
    }
    g0 = g1;
  }
  if (out) {
    out->step = rc.step;
    out->rank = rc.rank;
    out->label = rc.label;
  }
  return out;
}

/// Error statistics of one node of the module tree (its own outputs and all descendants').
struct ModuleRollup {
  /// The node's name: a module or API entry ("Module.layers.0.Linear.forward.0").
  std::string node;
  /// Its parent in construct.json; nullopt for a root.
  std::optional<std::string> parent;
  /// Distance from its root (0 for a root).
  int depth = 0;
  bool dumped = false;         ///< the node is an entry of the NPU dump
  std::size_t rows = 0;        ///< output rows counted
  std::size_t failing = 0;     ///< of which failing (error or warning)
  /// Smallest cosine of the counted rows (tensor mode); NaN when none has one.
  double min_cosine = std::numeric_limits<double>::quiet_NaN();
  /// Largest absolute error of the counted rows (as FirstDivergence::max_abs_err); NaN when none.
  double max_abs_err = std::numeric_limits<double>::quiet_NaN();
  /// Largest relative error of the counted rows, as a fraction (as FirstDivergence::max_rel_err).
  double max_rel_err = std::numeric_limits<double>::quiet_NaN();
};

/// Per-node roll-up along construct.json (entries it does not list are roots),
/// in construct.json order followed by the other entries in dump order.
inline std::vector<ModuleRollup> module_rollup(const RankComparison& rc, const DivergenceOptions& o = {}) {
  std::vector<ModuleRollup> nodes;
  std::map<std::string, std::size_t> at;
  auto add = [&](const std::string& name, std::optional<std::string> parent) {
    if (at.count(name)) return at[name];
    at[name] = nodes.size();
    ModuleRollup m;
    m.node = name;
    m.parent = std::move(parent);
    nodes.push_back(std::move(m));
    return nodes.size() - 1;
  };
  if (rc.npu_dump && rc.npu_dump->construct)
    for (const auto& [n, p] : rc.npu_dump->construct->nodes) add(n, p);
  if (rc.npu_dump)
    for (const auto& e : rc.npu_dump->entries) nodes[add(e.name, std::nullopt)].dumped = true;
  // parents named but not listed become roots
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].parent && !at.count(*nodes[i].parent)) add(*nodes[i].parent, std::nullopt);
  for (auto& n : nodes) {
    int d = 0;
    std::optional<std::string> p = n.parent;
    while (p && d < 10000) {
      ++d;
      p = nodes[at[*p]].parent;
    }
    n.depth = d;
  }
  for (const Row& r : rc.rows) {
    const Item& it = rc.npu_items[r.npu];
    if (!it.is_output()) continue;
    double c, a, e;
    detail::row_errors(rc, r, c, a, e);
    const bool fails = detail::row_fails(rc, r, o);
    std::optional<std::string> cur = it.entry;
    int guard = 0;
    while (cur && guard++ < 10000) {
      auto f = at.find(*cur);
      if (f == at.end()) break;
      ModuleRollup& m = nodes[f->second];
      ++m.rows;
      if (fails) ++m.failing;
      detail::fold_min(m.min_cosine, c);
      detail::fold_max(m.max_abs_err, a);
      detail::fold_max(m.max_rel_err, e);
      cur = m.parent;
    }
  }
  return nodes;
}

}  // namespace match
TD_NAMESPACE_END
