// tensordiff — the Result column: msprobe's pass/warning/error rules (spec §3.3)
// and the legacy `Accuracy Reached or Not` (spec §3.2).
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "table.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// Thresholds of the current rules. The defaults are msprobe's, except the
/// one-thousandth rule's output threshold: msprobe's message says 0.6, its
/// code uses 0.1; tensordiff uses 0.6 unless Compat::msprobe.
struct RuleOptions {
  /// Compat::msprobe reproduces msprobe's quirks: the 0.1 output threshold, and the compare
  /// messages dropped instead of kept as "info: " result messages.
  Compat compat = Compat::tensordiff;
  /// OneThousandth (tensor mode, error): fires when the smallest One Thousandth Err Ratio of
  /// an entry's inputs is above this...
  double thousandth_input_min = 0.9;
  double thousandth_output_max = 0.6;  ///< 0.1 under Compat::msprobe
  /// CosineWarn (tensor mode, warning): fires when the smallest input cosine is above this...
  double cosine_input_min = 0.9;
  /// ...and the smallest output cosine is more than this below it.
  double cosine_drop = 0.1;
  /// Relative (statistics mode, error): applies when the largest input NormRelativeErr, as a
  /// fraction, is below this (10%)...
  double relative_input_max = 0.1;
  /// ...and fires on each output whose NormRelativeErr is above this (50%).
  double relative_output_error = 0.5;
  /// RelativeWarn (statistics mode, warning), inputs exactly equal (input NormRelativeErr 0):
  /// fires when the largest output NormRelativeErr is above this (10%).
  double relative_warn_zero_input = 0.1;
  /// RelativeWarn otherwise: fires when the largest output NormRelativeErr is more than this
  /// many times the largest input one.
  double relative_warn_ratio = 10;
};

/// The Result column's messages, verbatim as msprobe writes them (spec §3.3); the prefix
/// "error: " or "warning: " sets the row's level.
namespace rule_msg {
/// The Err_message texts of one flavour: tensordiff's (default) or msprobe 26.0's verbatim.
struct Texts {
  const char* infnan;         ///< InfNan: the NPU Max or Min is nan / inf while the bench's are not
  const char* thousandth;     ///< OneThousandth (tensor mode), on the entry's first output
  const char* relative;       ///< Relative (statistics mode), on each output over the threshold
  const char* requires_grad;  ///< RequiresGrad: the two sides' requires_grad differ
  const char* parameters;     ///< Parameters: a scalar (non-tensor) input differs
  const char* dtype;          ///< DType: the two sides' dtypes differ
  const char* shape;          ///< Shape: the two sides' shapes differ
  const char* crc_differs;    ///< CRC32 (md5 mode): both sides have a CRC-32 and they differ
  const char* crc_missing;    ///< CRC32 (md5 mode): one side has none to compare
  const char* cosine_warn;    ///< CosineWarn (tensor mode), on the entry's first output
  const char* relative_warn;  ///< RelativeWarn (statistics mode), on the entry's first output
};
/// tensordiff's texts: they say what the rule tests (0.6, not msprobe's "< 0.6" over a 0.1 test).
inline const Texts& tensordiff_texts() {
  static const Texts t{"error: There is nan/inf/-inf in the maximum or minimum value of NPU.",
                       "error: The One Thousandth Err Ratio of the inputs is > 0.9 while that of the output < 0.6.",
                       "error: The NormRelativeErr of the inputs is < 10% while that of the output > 50%.",
                       "error: The requires_grad of NPU and Bench are inconsistent.",
                       "error: The scalar parameters of NPU and Bench are inconsistent.",
                       "error: The dtype of NPU and Bench are inconsistent.",
                       "error: The shape of NPU and Bench are inconsistent.",
                       "error: The CRC-32 value of NPU differs from that of the bench.",
                       "warning: The parameter of NPU does not match the bench.",
                       "warning: The Cosine of the output is more than 0.1 lower than that of the inputs (inputs > 0.9).",
                       "warning: The NormRelativeErr of the output is more than 10 times that of the inputs."};
  return t;
}
/// msprobe 26.0's texts, verbatim (indicator_analysis/algorithm.py; two have no final period).
inline const Texts& msprobe_texts() {
  static const Texts t{"error: There is nan/inf/-inf in the maximum or minimum value of NPU.",
                       "error: The input/parameters of One Thousandth Err Ratio > 0.9 while the output < 0.6.",
                       "error: The NormRelativeErr of output is greater than 0.5.",
                       "error: The Required_Grad of NPU and Bench are inconsistent",
                       "error: The scalar parameters of NPU and Bench are inconsistent.",
                       "error: The dtype of NPU and Bench are inconsistent.",
                       "error: The shape of NPU and Bench are inconsistent.",
                       "error: The CRC-32 value of NPU differs from that of the bench.",
                       "warning: The parameter of NPU does not match the bench.",
                       "warning: The input/parameters of Cosine > 0.9, and input/parameters - output > 0.1",
                       "warning: The norm relative error of output is 10 times that of input."};
  return t;
}
/// The texts `Compat` asks for.
inline const Texts& texts(Compat c) { return c == Compat::msprobe ? msprobe_texts() : tensordiff_texts(); }
/// tensordiff only: a row without a bench counterpart.
inline const char* unmatched() { return "warning: No bench data matched."; }
/// DataFile: the data file of a tensor-mode row could not be read (the reason follows; not under msprobe compat).
inline const char* data_file() { return "error: The data file could not be read: "; }
}  // namespace rule_msg

namespace detail {
inline int severity(const std::string& r) { return r == "error" ? 2 : r == "warning" ? 1 : 0; }

inline void fire(Row& row, const char* rule, const std::string& message) {
  const bool err = message.rfind("error", 0) == 0;
  const std::string level = err ? "error" : "warning";
  if (severity(level) > severity(row.result)) row.result = level;
  if (std::find(row.result_messages.begin(), row.result_messages.end(), message) == row.result_messages.end())
    row.result_messages.push_back(message);
  row.tripped.push_back(rule);
}

inline bool is_nonfinite_stat(const Cell& c) {
  if (c.kind == Cell::Kind::real) return !std::isfinite(c.real);
  if (c.kind == Cell::Kind::text) {
    const std::string l = lower(c.text);
    return l == "nan" || l == "inf" || l == "-inf";
  }
  return false;
}

/// '12.5%' → 0.125, 'inf' → inf, '0' → 0; nullopt for N/A, Nan, Diff.
inline std::optional<double> percent_fraction(const Cell& c) {
  if (c.kind == Cell::Kind::real) return std::fabs(c.real) / (c.style == Cell::Style::percent ? 100.0 : 1.0);
  if (c.kind != Cell::Kind::text) return std::nullopt;
  if (c.text == "0") return 0.0;
  if (c.text == "inf" || c.text == "-inf") return std::numeric_limits<double>::infinity();
  return std::nullopt;
}

/// Cross-framework dtype spelling: "Float32" and "torch.float32" → "float32".
inline std::string canonical_dtype(const std::string& d) {
  std::string s = lower(d);
  if (s.rfind("torch.", 0) == 0) s = s.substr(6);
  if (s == "half") s = "float16";
  if (s == "float") s = "float32";
  if (s == "double") s = "float64";
  if (s == "long") s = "int64";
  return s;
}

inline const std::vector<std::string>& ignore_all() {
  static const std::vector<std::string> v = {"empty", "empty_like", "numpy", "to", "__setitem__", "empty_with_format",
                                             "new_empty_strided", "new_empty", "empty_strided"};
  return v;
}
inline const std::vector<std::string>& ignore_inputs() {
  static const std::vector<std::string> v = {"_reduce_scatter_base", "_all_gather_base", "all_to_all_single", "batch_isend_irecv"};
  return v;
}
inline std::string api_of(const std::string& name) {
  const std::size_t a = name.find('.');
  if (a == std::string::npos) return "";
  const std::size_t b = name.find('.', a + 1);
  return name.substr(a + 1, b == std::string::npos ? std::string::npos : b - a - 1);
}
}  // namespace detail

namespace detail {
/// msprobe's aggregate reader (ApiData.get_min_or_max_value): numbers and "…%" strings only.
inline std::optional<double> aggregate_fraction(const Cell& c) {
  if (c.kind == Cell::Kind::real && c.style == Cell::Style::percent) return std::fabs(c.real) / 100.0;
  if (c.kind == Cell::Kind::real && !std::isnan(c.real)) return c.real;
  return std::nullopt;
}

/// The rows of one API / module and the checkers' view of them.
struct RuleGroup {
  std::vector<std::size_t> inputs, outputs;  ///< row indices, NPU order ('.output.' in the NPU name)
  bool skip_all = false, skip_inputs = false;
  /// get_data_list_by_ignore_info: the rows the per-row checkers visit.
  std::vector<std::size_t> checked() const {
    if (skip_all) return {};
    if (skip_inputs) return outputs;
    std::vector<std::size_t> v = inputs;
    v.insert(v.end(), outputs.begin(), outputs.end());
    return v;
  }
  bool aggregates() const { return !skip_all && !skip_inputs; }
};
}  // namespace detail

/// Applies the current rules (§3.3) to every row, API by API, checker by checker in msprobe's
/// order (tensor: InfNan, OneThousandth, RequiresGrad, Parameters, DType, Shape, CosineWarn;
/// statistics: InfNan, Relative, RequiresGrad, Parameters, DType, Shape, RelativeWarn; md5: CRC32).
/// Compat::msprobe reproduces msprobe 26.0 (docs/msprobe-differences.md lists what differs).
inline void apply_current_rules(RankComparison& rc, RuleOptions o = {}) {
  const bool msprobe = o.compat == Compat::msprobe;
  if (msprobe) o.thousandth_output_max = 0.1;
  const rule_msg::Texts& msg = rule_msg::texts(o.compat);
  const Mode mode = rc.mode;
  const TableLayout layout{mode, ResultRules::current, false};
  const std::vector<std::string> hdr = table_header(layout);
  const auto norm_rel_col = static_cast<std::size_t>(std::find(hdr.begin(), hdr.end(), "NormRelativeErr") - hdr.begin());
  std::size_t g0 = 0;
  while (g0 < rc.rows.size()) {  // rows of an entry are contiguous (NPU dump order)
    std::size_t g1 = g0;
    const std::size_t entry = rc.npu_items[rc.rows[g0].npu].entry_index;
    while (g1 < rc.rows.size() && rc.npu_items[rc.rows[g1].npu].entry_index == entry) ++g1;
    detail::RuleGroup g;
    std::string api;  // from the first input row
    for (std::size_t i = g0; i < g1; ++i) {
      Row& row = rc.rows[i];
      row.result = "pass";
      row.result_messages.clear();
      row.tripped.clear();
      const Item& n = rc.npu_items[row.npu];
      (n.is_output() ? g.outputs : g.inputs).push_back(i);
      if (api.empty() && !n.is_output()) api = detail::api_of(n.name);
    }
    const auto& ia = detail::ignore_all();
    const auto& ii = detail::ignore_inputs();
    g.skip_all = std::find(ia.begin(), ia.end(), api) != ia.end();
    g.skip_inputs = std::find(ii.begin(), ii.end(), api) != ii.end();
    const std::vector<std::size_t> checked = g.checked();
    auto npu = [&](std::size_t i) -> const Item& { return rc.npu_items[rc.rows[i].npu]; };
    auto bench = [&](std::size_t i) { return rc.bench_item(rc.rows[i]); };
    // tensordiff: an unmatched row says so and no other rule looks at it (no bench to judge by).
    auto judged = [&](std::size_t i) { return msprobe || bench(i) != nullptr; };
    if (!msprobe)
      for (std::size_t i : checked)
        if (!bench(i)) detail::fire(rc.rows[i], "Unmatched", rule_msg::unmatched());
    auto norm_rel = [&](std::size_t i) { return row_cells(rc, rc.rows[i], layout, false)[norm_rel_col]; };

    if (mode == Mode::md5) {
      for (std::size_t i : checked) {
        if (!judged(i)) continue;
        const Md5Cells m = md5_cells(rc, rc.rows[i]);
        const std::string &nm = m.npu, &bm = m.bench;
        if (nm == bm && !m.nan) continue;
        auto missing = [](const std::string& s) { return s == "N/A" || s == "Nan" || s.empty(); };
        detail::fire(rc.rows[i], "CRC32", !m.nan && (missing(nm) || missing(bm)) ? msg.crc_missing : msg.crc_differs);
      }
    } else {
      // InfNan: also on rows without a bench (their bench max/min read "N/A").
      for (std::size_t i : checked) {
        if (!judged(i)) continue;
        const Item* b = bench(i);
        if (b && (detail::is_nonfinite_stat(stat_cell(b->max)) || detail::is_nonfinite_stat(stat_cell(b->min)))) continue;
        if (detail::is_nonfinite_stat(stat_cell(npu(i).max)) || detail::is_nonfinite_stat(stat_cell(npu(i).min)))
          detail::fire(rc.rows[i], "InfNan", msg.infnan);
      }
      if (mode == Mode::tensor && g.aggregates() && !g.outputs.empty()) {  // OneThousandth
        double in_min = 1.0, out_min = 1.0;
        bool any_out = false;
        for (std::size_t i : g.inputs) {
          const Metric& t = rc.rows[i].metrics[one_thousandth];
          if (t.has_value()) in_min = std::min(in_min, pyformat::fixed12(t.value));
        }
        for (std::size_t i : g.outputs) {
          const Metric& t = rc.rows[i].metrics[one_thousandth];
          if (t.has_value()) out_min = std::min(out_min, pyformat::fixed12(t.value)), any_out = true;
        }
        if ((msprobe || any_out) && in_min > o.thousandth_input_min && out_min < o.thousandth_output_max)
          detail::fire(rc.rows[g.outputs.front()], "OneThousandth", msg.thousandth);
      }
      if (mode == Mode::statistics && g.aggregates()) {  // Relative
        double in_max = 0;
        for (std::size_t i : g.inputs) {
          const Cell c = norm_rel(i);
          const auto f = msprobe ? detail::aggregate_fraction(c) : detail::percent_fraction(c);
          if (f) in_max = std::max(in_max, *f);
        }
        if (in_max < o.relative_input_max)
          for (std::size_t i : g.outputs) {
            const auto f = detail::percent_fraction(norm_rel(i));  // "inf" reads as infinite, other text as 0
            if (f && *f > o.relative_output_error) detail::fire(rc.rows[i], "Relative", msg.relative);
          }
      }
      for (std::size_t i : checked) {  // RequiresGrad
        const Item* b = bench(i);
        if (!b) continue;
        const std::string& nr = npu(i).requires_grad;
        const std::string& br = b->requires_grad;
        if (nr.empty() || br.empty() || nr == br) continue;
        if (!msprobe && (nr == "None" || br == "None")) continue;
        detail::fire(rc.rows[i], "RequiresGrad", msg.requires_grad);
      }
      if (g.aggregates())
        for (std::size_t i : g.inputs) {  // Parameters: scalar arguments
          const Item* b = bench(i);
          if (!b) continue;
          const Item& n = npu(i);
          if (n.dtype.find("class") == std::string::npos || b->dtype.find("class") == std::string::npos || n.shape != "[]")
            continue;
          if (csv_text(stat_cell(n.max)) != csv_text(stat_cell(b->max))) detail::fire(rc.rows[i], "Parameters", msg.parameters);
        }
      for (std::size_t i : checked) {  // DType (qkv / gate_up: fused weights, exempt by the bench name)
        const Item* b = bench(i);
        if (!b || b->name.find("qkv") != std::string::npos || b->name.find("gate_up") != std::string::npos) continue;
        const std::string& nd = npu(i).dtype;
        const bool differs = msprobe ? nd != b->dtype : detail::canonical_dtype(nd) != detail::canonical_dtype(b->dtype);
        if (differs) detail::fire(rc.rows[i], "DType", msg.dtype);
      }
      for (std::size_t i : checked) {  // Shape
        const Item* b = bench(i);
        if (b && npu(i).shape != b->shape) detail::fire(rc.rows[i], "Shape", msg.shape);
      }
      if (mode == Mode::tensor && g.aggregates() && !g.outputs.empty()) {  // CosineWarn
        double in_min = 1.0, out_min = 1.0;
        bool any_in = false, any_out = false;
        for (std::size_t i : g.inputs) {
          const Metric& c = rc.rows[i].metrics[cosine];
          if (c.has_value() && !std::isnan(c.value)) in_min = std::min(in_min, pyformat::cosine(c.value)), any_in = true;
        }
        for (std::size_t i : g.outputs) {
          const Metric& c = rc.rows[i].metrics[cosine];
          if (c.has_value() && !std::isnan(c.value)) out_min = std::min(out_min, pyformat::cosine(c.value)), any_out = true;
        }
        // msprobe starts both minima at 1.0, so it warns with no numeric input cosine at all.
        if ((msprobe || (any_in && any_out)) && in_min > o.cosine_input_min && in_min - out_min > o.cosine_drop)
          detail::fire(rc.rows[g.outputs.front()], "CosineWarn", msg.cosine_warn);
      }
      if (mode == Mode::statistics && g.aggregates() && !g.outputs.empty()) {  // RelativeWarn
        double in_max = 0, out_max = 0;
        for (std::size_t i : g.inputs) {
          const Cell c = norm_rel(i);
          const auto f = msprobe ? detail::aggregate_fraction(c) : detail::percent_fraction(c);
          if (f) in_max = std::max(in_max, *f);
        }
        for (std::size_t i : g.outputs) {
          const Cell c = norm_rel(i);
          const auto f = msprobe ? detail::aggregate_fraction(c) : detail::percent_fraction(c);
          if (f) out_max = std::max(out_max, *f);
        }
        const bool warn = in_max == 0 ? out_max > o.relative_warn_zero_input : out_max / in_max > o.relative_warn_ratio;
        if (warn) detail::fire(rc.rows[g.outputs.front()], "RelativeWarn", msg.relative_warn);
      }
    }
    // A row whose data file could not be read never passes (msprobe's rules
    // let it pass; its table stays byte-identical under compat).
    if (!msprobe)
      for (std::size_t i = g0; i < g1; ++i)
        if (!rc.rows[i].data_file_error.empty())
          detail::fire(rc.rows[i], "DataFile", std::string(rule_msg::data_file()) + rc.rows[i].data_file_error);
    // msprobe discards the compare messages; tensordiff keeps them as info entries.
    if (!msprobe)
      for (std::size_t i = g0; i < g1; ++i)
        for (const auto& m : rc.rows[i].compare_messages) rc.rows[i].result_messages.push_back("info: " + m);
    g0 = g1;
  }
}

/// Legacy check_accuracy (§3.2) on the tensor-mode metric cells.
inline std::string legacy_accuracy(const Row& r) {
  const Cell cos = detail::metric_cell(r.metrics[cosine], Cell::Style::cosine);
  const Cell mae = detail::metric_cell(r.metrics[max_abs_err], Cell::Style::fixed12);
  auto text = [](const Cell& c) { return csv_text(c); };
  if (text(cos) == "shape unmatched") return "Unmatched";
  if (text(cos) == "None" || text(mae) == "None") return "None";
  if (text(cos) == "N/A" || text(mae) == "N/A") return "No";
  if (cos.kind != Cell::Kind::real || mae.kind != Cell::Kind::real) return "None";
  const double c = shown_value(cos), m = shown_value(mae);
  if (c < 0.99 && m > 0.001) return "No";
  if (c < 0.9 || m > 1) return "No";
  return "Yes";
}

/// Legacy results: tensor → Accuracy Reached or Not; md5 → pass / Different / N/A.
inline void apply_legacy_rules(RankComparison& rc) {
  for (Row& r : rc.rows) {
    r.result_messages.clear();
    r.tripped.clear();
    if (rc.mode == Mode::tensor) {
      r.result = legacy_accuracy(r);
    } else if (rc.mode == Mode::md5) {
      const Item* b = rc.bench_item(r);
      r.result = !b ? "N/A" : rc.npu_items[r.npu].md5 == b->md5 ? "pass" : "Different";
    }
    if (r.result == "No" || r.result == "Different") r.tripped.push_back("Accuracy");
  }
  if (rc.mode == Mode::statistics) apply_current_rules(rc, RuleOptions{Compat::msprobe});
}

}  // namespace match
TD_NAMESPACE_END
