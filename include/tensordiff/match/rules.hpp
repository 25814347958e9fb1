// tensordiff — the Result column: msprobe's pass/warning/error rules (spec §3.3)
// and the legacy `Accuracy Reached or Not` (spec §3.2).
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
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
/// InfNan (tensor and statistics modes): the NPU Max or Min is nan / inf while the bench's are not.
inline const char* infnan() { return "error: There is nan/inf/-inf in the maximum or minimum value of NPU."; }
/// OneThousandth (tensor mode), on the entry's first output. States 0.6 even under
/// Compat::msprobe, whose code tests 0.1 (msprobe's own message says 0.6).
inline const char* thousandth() {
  return "error: The One Thousandth Err Ratio of the inputs is > 0.9 while that of the output < 0.6.";
}
/// Relative (statistics mode), on each output over the threshold.
inline const char* relative() { return "error: The NormRelativeErr of the inputs is < 10% while that of the output > 50%."; }
/// RequiresGrad: the two sides' requires_grad differ.
inline const char* requires_grad() { return "error: The requires_grad of NPU and Bench are inconsistent."; }
/// Parameters: a scalar (non-tensor) input has different values on the two sides.
inline const char* parameters() { return "error: The scalar parameters of NPU and Bench are inconsistent."; }
/// DType: the two sides' dtypes differ.
inline const char* dtype() { return "error: The dtype of NPU and Bench are inconsistent."; }
/// Shape: the two sides' shapes differ.
inline const char* shape() { return "error: The shape of NPU and Bench are inconsistent."; }
/// CRC32 (md5 mode): both sides have a CRC-32 and they differ.
inline const char* crc_differs() { return "error: The CRC-32 value of NPU differs from that of the bench."; }
/// CRC32 (md5 mode): one side has no CRC-32 to compare (msprobe's wording).
inline const char* crc_missing() { return "warning: The parameter of NPU does not match the bench."; }
/// CosineWarn (tensor mode), on the entry's first output.
inline const char* cosine_warn() {
  return "warning: The Cosine of the output is more than 0.1 lower than that of the inputs (inputs > 0.9).";
}
/// RelativeWarn (statistics mode), on the entry's first output.
inline const char* relative_warn() {
  return "warning: The NormRelativeErr of the output is more than 10 times that of the inputs.";
}
/// Unmatched: the NPU item has no bench partner.
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

/// Applies the current rules (§3.3) to every row, API by API.
inline void apply_current_rules(RankComparison& rc, RuleOptions o = {}) {
  if (o.compat == Compat::msprobe) o.thousandth_output_max = 0.1;
  const Mode mode = rc.mode;
  const bool msprobe = o.compat == Compat::msprobe;
  const TableLayout layout{mode, ResultRules::current, false};
  // Group rows by entry (rows of an entry are contiguous: NPU dump order).
  std::size_t g0 = 0;
  while (g0 < rc.rows.size()) {
    std::size_t g1 = g0;
    const std::size_t entry = rc.npu_items[rc.rows[g0].npu].entry_index;
    while (g1 < rc.rows.size() && rc.npu_items[rc.rows[g1].npu].entry_index == entry) ++g1;
    for (std::size_t i = g0; i < g1; ++i) {
      rc.rows[i].result = "pass";
      rc.rows[i].result_messages.clear();
      rc.rows[i].tripped.clear();
    }
    // API name from the first input row
    std::string api;
    for (std::size_t i = g0; i < g1; ++i)
      if (!rc.npu_items[rc.rows[i].npu].is_output()) {
        api = detail::api_of(rc.npu_items[rc.rows[i].npu].name);
        break;
      }
    const auto& ia = detail::ignore_all();
    const auto& ii = detail::ignore_inputs();
    const bool skip_all = std::find(ia.begin(), ia.end(), api) != ia.end();
    const bool skip_inputs = std::find(ii.begin(), ii.end(), api) != ii.end();
    if (!skip_all) {
      std::vector<std::vector<Cell>> cells;
      for (std::size_t i = g0; i < g1; ++i) cells.push_back(row_cells(rc, rc.rows[i], layout, false));
      const std::vector<std::string> hdr = table_header(layout);
      auto cell = [&](std::size_t i, const char* col) {
        const auto at = std::find(hdr.begin(), hdr.end(), col) - hdr.begin();
        return cells[i - g0][static_cast<std::size_t>(at)];
      };
      const double inf = std::numeric_limits<double>::infinity();
      double in_thousandth = 1.0, out_thousandth = inf, in_cos = inf, out_cos = inf, in_rel = 0, out_rel_max = -1;
      bool has_out_thousandth = false, has_in_cos = false, has_out_cos = false;
      std::ptrdiff_t first_out = -1;
      for (std::size_t i = g0; i < g1; ++i) {
        Row& row = rc.rows[i];
        const Item& n = rc.npu_items[row.npu];
        const Item* b = rc.bench_item(row);
        const bool output = n.is_output();
        if (output && first_out < 0) first_out = static_cast<std::ptrdiff_t>(i);
        if (!output && skip_inputs) continue;
        if (!b && !msprobe) {
          detail::fire(row, "Unmatched", rule_msg::unmatched());
          continue;
        }
        // per-row error rules
        if (mode != Mode::md5) {
          const bool bench_bad = b && (detail::is_nonfinite_stat(stat_cell(b->max)) || detail::is_nonfinite_stat(stat_cell(b->min)));
          if (!bench_bad && (detail::is_nonfinite_stat(stat_cell(n.max)) || detail::is_nonfinite_stat(stat_cell(n.min))))
            detail::fire(row, "InfNan", rule_msg::infnan());
          const std::string brg = b ? b->requires_grad : "N/A";
          if (n.requires_grad != "None" && brg != "None" && n.requires_grad != brg && (b || msprobe))
            detail::fire(row, "RequiresGrad", rule_msg::requires_grad());
          const std::string bdt = b ? b->dtype : "N/A";
          if (!output && n.dtype.find("class") != std::string::npos && bdt.find("class") != std::string::npos && n.shape == "[]" &&
              csv_text(stat_cell(n.max)) != (b ? csv_text(stat_cell(b->max)) : "N/A"))
            detail::fire(row, "Parameters", rule_msg::parameters());
          const bool skip_dtype = n.name.find("qkv") != std::string::npos || n.name.find("gate_up") != std::string::npos;
          const bool dtype_differs = msprobe ? n.dtype != bdt : detail::canonical_dtype(n.dtype) != detail::canonical_dtype(bdt);
          if (!skip_dtype && dtype_differs) detail::fire(row, "DType", rule_msg::dtype());
          if (n.shape != (b ? b->shape : "N/A")) detail::fire(row, "Shape", rule_msg::shape());
        } else {
          const std::string bm = b ? b->md5 : "N/A";
          if (n.md5 != bm) {
            auto missing = [](const std::string& s) { return s == "N/A" || s == "Nan" || s.empty(); };
            detail::fire(row, "CRC32", missing(n.md5) || missing(bm) ? rule_msg::crc_missing() : rule_msg::crc_differs());
          }
        }
        // aggregates
        if (mode == Mode::tensor) {
          const Metric& t = row.metrics[one_thousandth];
          const Metric& c = row.metrics[cosine];
          const double tv = t.has_value() ? pyformat::fixed12(t.value) : 0;
          const double cv = c.has_value() ? pyformat::cosine(c.value) : 0;
          if (output) {
            if (t.has_value()) out_thousandth = std::min(out_thousandth, tv), has_out_thousandth = true;
            if (c.has_value()) out_cos = std::min(out_cos, cv), has_out_cos = true;
          } else {
            if (t.has_value()) in_thousandth = std::min(in_thousandth, tv);
            if (c.has_value()) in_cos = std::min(in_cos, cv), has_in_cos = true;
          }
        } else if (mode == Mode::statistics) {
          const auto f = detail::percent_fraction(cell(i, "NormRelativeErr"));
          if (f) {
            if (output) out_rel_max = std::max(out_rel_max, *f);
            else in_rel = std::max(in_rel, *f);
          }
        }
      }
      if (first_out >= 0) {
        Row& fo = rc.rows[static_cast<std::size_t>(first_out)];
        if (mode == Mode::tensor) {
          if (has_out_thousandth && in_thousandth > o.thousandth_input_min && out_thousandth < o.thousandth_output_max)
            detail::fire(fo, "OneThousandth", rule_msg::thousandth());
          if (has_in_cos && has_out_cos && in_cos > o.cosine_input_min && in_cos - out_cos > o.cosine_drop)
            detail::fire(fo, "CosineWarn", rule_msg::cosine_warn());
        } else if (mode == Mode::statistics) {
          if (in_rel < o.relative_input_max)
            for (std::size_t i = g0; i < g1; ++i) {
              if (!rc.npu_items[rc.rows[i].npu].is_output()) continue;
              const auto f = detail::percent_fraction(cell(i, "NormRelativeErr"));
              if (f && *f > o.relative_output_error) detail::fire(rc.rows[i], "Relative", rule_msg::relative());
            }
          if (out_rel_max >= 0) {
            const bool warn = in_rel == 0 ? out_rel_max > o.relative_warn_zero_input : out_rel_max / in_rel > o.relative_warn_ratio;
            if (warn) detail::fire(fo, "RelativeWarn", rule_msg::relative_warn());
          }
        }
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
