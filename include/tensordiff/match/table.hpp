// tensordiff — the rows of a dump comparison and msprobe's table layout (spec §3.1).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../metrics/comparison.hpp"
#include "cell.hpp"
#include "detail/pandas_number.hpp"
#include "matchers.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// Which result column and rules: msprobe's current pass/warning/error
/// (§3.3) or the legacy `Accuracy Reached or Not` (§3.2).
enum class ResultRules : std::uint8_t { current, legacy };

/// The six tensor-mode metrics, in table order (Row::metrics is indexed by them): Cosine,
/// EucDist, MaxAbsErr, MaxRelativeErr, One Thousandth Err Ratio, Five Thousandths Err Ratio.
enum TensorMetric : int { cosine = 0, euc_dist, max_abs_err, max_rel_err, one_thousandth, five_thousandths };

/// One table row: an NPU item, its bench item (or none) and the comparison.
struct Row {
  std::size_t npu = 0;      ///< index into RankComparison::npu_items
  std::ptrdiff_t bench = -1;  ///< index into bench_items, -1 when unmatched
  std::string match_reason;  ///< "exact", "fuzzy: ...", "data mapping: ...", or why unmatched
  std::ptrdiff_t gated_bench = -1;  ///< the same-name bench item the dtype gate refused, if any

  // tensor mode
  Metric metrics[6];                      ///< Cosine, EucDist, MaxAbsErr, MaxRelativeErr, ratios
  std::vector<std::string> compare_messages;  ///< msprobe's §1.1/§1.2 messages, in order
  /// compare()'s verdict on the pair's shapes and nan/inf positions (empty, shape_unmatched,
  /// zero_dim, nonfinite_mismatch); ok otherwise.
  Validation validation = Validation::ok;
  std::string data_file_error;  ///< set when a data file could not be read
  ///@{
  /// Flat C-order index of the largest absolute / relative error (no_index when not compared).
  std::uint64_t max_abs_index = no_index, max_rel_index = no_index;
  ///@}
  /// Mean |npu − bench| over the elements (extra, not an msprobe column); NaN when not compared.
  double mean_abs_err = std::numeric_limits<double>::quiet_NaN();
  /// Mean relative error over the elements (extra); NaN when not compared.
  double mean_rel_err = std::numeric_limits<double>::quiet_NaN();
  /// Root mean square of npu − bench (extra); NaN when not compared.
  double rmse = std::numeric_limits<double>::quiet_NaN();
  bool compared = false;  ///< both tensors were loaded and compared

  // statistics mode: Max/Min/Mean/L2norm diff and relative error (§2.1)
  /// NPU minus bench of Max, Min, Mean, L2norm (msprobe's "Max diff" ... columns); a text cell
  /// ("0", "Nan", "inf", "N/A", "Diff") where msprobe writes one.
  Cell stat_diff[4];
  /// |diff / bench| of the same four, as a percentage cell ("MaxRelativeErr" ... columns); "inf"
  /// where the bench statistic is 0.
  Cell stat_rel[4];

  // result
  std::string result = "pass";  ///< pass / warning / error, or Yes / No / None / Unmatched (legacy)
  std::vector<std::string> result_messages;  ///< "error: ...", "warning: ..."
  std::vector<std::string> tripped;          ///< names of the rules that fired

  /// The NPU item has a bench partner.
  bool matched() const noexcept { return bench >= 0; }
};

/// One rank (one pair of dump folders) compared.
struct RankComparison {
  std::string step;  ///< "step3", or "" for a single step
  int rank = -1;     ///< -1 when the folder is not a rank folder
  std::string label;  ///< "rank0", "step3/rank0", or the folder name
  std::string npu_folder;  ///< the NPU rank folder's own name ("rank3", "rank", "proc1234"), else ""
  /// What the dumps allowed: tensor values, statistics, or md5 (CRC-32) comparison.
  Mode mode = Mode::tensor;
  Compat compat = Compat::tensordiff;  ///< as requested (Compat::msprobe: msprobe's N/A cells)
  ///@{
  /// The two dumps (null for plain folders of data files); the items point into them.
  std::shared_ptr<io::DumpFile> npu_dump, bench_dump;
  ///@}
  ///@{
  /// Each dump flattened into table items, in dump order (see items.hpp).
  std::vector<Item> npu_items, bench_items;
  ///@}
  std::vector<Row> rows;                  ///< NPU dump order
  std::vector<std::size_t> bench_only;    ///< bench items no NPU item paired with, bench order
  bool has_stack = false;                 ///< stack.json next to the NPU dump.json
  bool plain_folders = false;             ///< two folders of data files, no dump.json
  bool msprobe_fuzzy_md5 = false;         ///< Compat::msprobe, md5 mode, fuzzy matching (see md5_cells)

  /// The NPU item of a row.
  const Item& npu_item(const Row& r) const { return npu_items[r.npu]; }
  /// The bench item of a row, or null when it is unmatched.
  const Item* bench_item(const Row& r) const { return r.bench >= 0 ? &bench_items[static_cast<std::size_t>(r.bench)] : nullptr; }
};

// --- statistics-mode differences (§2.1) ------------------------------------------------

namespace detail {
enum class StatClass { num, nan, inf, neg_inf, device, na, other };

inline StatClass classify(const Cell& c) {
  using K = Cell::Kind;
  if (c.kind == K::real) {
    if (std::isnan(c.real)) return StatClass::nan;
    if (std::isinf(c.real)) return c.real > 0 ? StatClass::inf : StatClass::neg_inf;
    return StatClass::num;
  }
  if (c.kind == K::integer) return StatClass::num;
  if (c.kind == K::text) {
    const std::string l = lower(c.text);
    if (l == "nan") return StatClass::nan;
    if (l == "inf") return StatClass::inf;
    if (l == "-inf") return StatClass::neg_inf;
    if (c.text == "N/A") return StatClass::na;
    if (l.find("npu") != std::string::npos || l.find("cpu") != std::string::npos || l.find("cuda") != std::string::npos)
      return StatClass::device;
  }
  return StatClass::other;
}

inline double num_of(const Cell& c) { return c.kind == Cell::Kind::integer ? static_cast<double>(c.integer) : c.real; }
}  // namespace detail

/// A dump.json statistic as a table cell (None, bool, int, float, text).
inline Cell stat_cell(const io::JsonScalar& s) {
  using K = io::JsonScalar::Kind;
  switch (s.kind) {
    case K::null: return Cell::none();
    case K::boolean: return Cell::flag(s.boolean);
    case K::integer: return Cell::integral(s.integer);
    case K::real: return Cell::number(s.real);
    case K::string:
    case K::composite: return Cell::str(s.text);
  }
  return Cell::none();
}

/// How msprobe's CalcStatsDiff reads two numeric statistics (Compat::msprobe): each cell's text
/// parsed as pandas 1.5 parses it; `integers`: both whole columns are integer literals, so pandas
/// keeps them int64 and the diff prints without ".0".
struct StatParse {
  bool pandas = false;    ///< parse the cells' text with pandas' tokenizer (else their exact values)
  bool integers = false;  ///< both columns int64
};

/// msprobe's CalcStatsDiff for one statistic: {diff, relative error}. The relative error is
/// |(diff / bench) · 100| — divided first, as msprobe does.
inline std::pair<Cell, Cell> stat_difference(const Cell& n, const Cell& b, StatParse how = {}) {
  using detail::StatClass;
  if (csv_text(n) == csv_text(b)) return {Cell::str("0"), Cell::str("0")};
  const StatClass cn = detail::classify(n), cb = detail::classify(b);
  auto both = [](const char* s) { return std::make_pair(Cell::str(s), Cell::str(s)); };
  auto numeric = [](StatClass c) { return c == StatClass::num || c == StatClass::nan || c == StatClass::inf || c == StatClass::neg_inf; };
  if (cn == StatClass::num && cb == StatClass::num) {
    if (how.integers && n.kind == Cell::Kind::integer && b.kind == Cell::Kind::integer) {
      const std::int64_t d = n.integer - b.integer;
      if (b.integer == 0) return {Cell::integral(d), Cell::str("inf")};
      return {Cell::integral(d),
              Cell::number(std::fabs(static_cast<double>(d) / static_cast<double>(b.integer) * 100), Cell::Style::percent)};
    }
    auto value = [&](const Cell& c) {
      return how.pandas ? detail::pandas_to_numeric(csv_text(c)).value_or(std::nan("")) : detail::num_of(c);
    };
    const double x = value(n), y = value(b);
    const double diff = x - y;
    Cell d = Cell::number(diff);
    if (y == 0) return {d, Cell::str("inf")};
    return {d, Cell::number(std::fabs(diff / y * 100), Cell::Style::percent)};
  }
  if ((cn == StatClass::nan && numeric(cb)) || (cb == StatClass::nan && numeric(cn))) return both("Nan");
  if (cn == StatClass::inf && (cb == StatClass::num || cb == StatClass::neg_inf)) return both("inf");
  if (cn == StatClass::neg_inf && (cb == StatClass::num || cb == StatClass::inf)) return both("-inf");
  if (cn == StatClass::num && cb == StatClass::inf) return both("-inf");
  if (cn == StatClass::num && cb == StatClass::neg_inf) return both("inf");
  if (cn == StatClass::na || cb == StatClass::na) return both("N/A");
  if (cn == StatClass::device && cb == StatClass::device) return both("N/A");
  if (cn == StatClass::device || cn == StatClass::other || cb == StatClass::device || cb == StatClass::other) return both("Diff");
  return both("N/A");
}

// --- header and cells -----------------------------------------------------------------

/// Column layout options.
struct TableLayout {
  /// Decides the metric columns (six metrics, statistics differences, or CRC-32s).
  Mode mode = Mode::tensor;
  /// Result column: "Result" (current rules) or "Accuracy Reached or Not" (legacy).
  ResultRules rules = ResultRules::current;
  bool stack = false;  ///< NPU_Stack_Info column (stack.json next to the NPU dump.json)
};

/// msprobe's header for the mode (§3.1).
inline std::vector<std::string> table_header(const TableLayout& l) {
  std::vector<std::string> h = {"NPU Name", "Bench Name", "NPU Dtype", "Bench Dtype", "NPU Tensor Shape",
                                "Bench Tensor Shape", "NPU Requires_grad", "Bench Requires_grad"};
  const char* summary_info[] = {"NPU max", "NPU min", "NPU mean", "NPU l2norm", "Bench max", "Bench min", "Bench mean", "Bench l2norm"};
  if (l.mode == Mode::tensor) {
    for (const char* c : {"Cosine", "EucDist", "MaxAbsErr", "MaxRelativeErr", "One Thousandth Err Ratio", "Five Thousandths Err Ratio"})
      h.push_back(c);
    for (const char* c : summary_info) h.push_back(c);
    h.push_back("Requires_grad Consistent");
    h.push_back(l.rules == ResultRules::legacy ? "Accuracy Reached or Not" : "Result");
    h.push_back("Err_message");
    if (l.stack) h.push_back("NPU_Stack_Info");
    h.push_back("Data_name");
  } else if (l.mode == Mode::statistics) {
    for (const char* c : {"Max diff", "Min diff", "Mean diff", "L2norm diff", "MaxRelativeErr", "MinRelativeErr", "MeanRelativeErr", "NormRelativeErr"})
      h.push_back(c);
    for (const char* c : summary_info) h.push_back(c);
    h.push_back("Requires_grad Consistent");
    h.push_back("Result");
    h.push_back("Err_message");
    if (l.stack) h.push_back("NPU_Stack_Info");
  } else {
    h.push_back("NPU MD5");
    h.push_back("BENCH MD5");
    h.push_back("Requires_grad Consistent");
    h.push_back("Result");
    if (l.rules != ResultRules::legacy) h.push_back("Err_message");
    if (l.stack && l.rules != ResultRules::legacy) h.push_back("NPU_Stack_Info");
  }
  return h;
}

namespace detail {
/// Python str() of a list of strings: ['a', "b'c"].
inline std::string py_list_str(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    const bool dq = v[i].find('\'') != std::string::npos && v[i].find('"') == std::string::npos;
    const char q = dq ? '"' : '\'';
    s += q;
    for (char c : v[i]) {
      if (c == '\\') s += "\\\\";
      else if (c == '\n') s += "\\n";
      else if (c == '\t') s += "\\t";
      else if (c == q) s += std::string("\\") + q;
      else s += c;
    }
    s += q;
  }
  return s + "]";
}

/// A JSON list of strings, as json.dumps writes it (msprobe's Err_message).
inline std::string json_list_str(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + nlohmann::json(v[i]).dump(-1, ' ', true);
  return s + "]";
}

inline Cell metric_cell(const Metric& m, Cell::Style st) {
  if (m.has_value()) return Cell::number(m.value, st);
  return Cell::str(msprobe_spelling(m.status));
}
}  // namespace detail

/// The NPU MD5 / BENCH MD5 cells of a row. msprobe 26.0's fuzzy (-fm) md5 table lacks its md5
/// columns: matched rows read NaN (written empty; NaN ≠ NaN, so CRC-32 says they differ),
/// unmatched rows N/A (RankComparison::msprobe_fuzzy_md5).
struct Md5Cells {
  std::string npu;    ///< NPU MD5 cell
  std::string bench;  ///< BENCH MD5 cell
  bool nan = false;   ///< both are msprobe's NaN
};
/// The MD5 cells of row `r` (see Md5Cells).
inline Md5Cells md5_cells(const RankComparison& rc, const Row& r) {
  const Item* b = rc.bench_item(r);
  if (rc.msprobe_fuzzy_md5) return b ? Md5Cells{"", "", true} : Md5Cells{"N/A", "N/A", false};
  return {rc.npu_item(r).md5, b ? b->md5 : "N/A", false};
}

/// The cells of one row, aligned with table_header(). `first_of_entry` says
/// whether the row is the first of its API/module (it gets the stack).
inline std::vector<Cell> row_cells(const RankComparison& rc, const Row& r, const TableLayout& l, bool first_of_entry) {
  const Item& n = rc.npu_item(r);
  const Item* b = rc.bench_item(r);
  const Cell na = Cell::str("N/A");
  std::vector<Cell> c;
  c.reserve(32);
  c.push_back(Cell::str(n.name));
  c.push_back(b ? Cell::str(b->name) : na);
  c.push_back(Cell::str(n.dtype));
  c.push_back(b ? Cell::str(b->dtype) : na);
  c.push_back(Cell::str(n.shape));
  c.push_back(b ? Cell::str(b->shape) : na);
  c.push_back(Cell::str(n.requires_grad));
  c.push_back(b ? Cell::str(b->requires_grad) : na);
  auto stats = [&] {
    for (const auto* s : {&n.max, &n.min, &n.mean, &n.norm}) c.push_back(stat_cell(*s));
    if (b)
      for (const auto* s : {&b->max, &b->min, &b->mean, &b->norm}) c.push_back(stat_cell(*s));
    else
      for (int k = 0; k < 4; ++k) c.push_back(na);
  };
  // msprobe compares the two cells as text, so N/A == N/A holds on unmatched rows too.
  const Cell consistent = rc.compat == Compat::msprobe ? Cell::flag(n.requires_grad == (b ? b->requires_grad : "N/A"))
                                                        : Cell::flag(b != nullptr && n.requires_grad == b->requires_grad);
  auto result_and_messages = [&](bool with_messages) {
    c.push_back(Cell::str(r.result));
    if (!with_messages) return;
    if (l.rules == ResultRules::legacy) {
      std::string m;
      for (const auto& s : r.compare_messages) m += s;
      c.push_back(Cell::str(m));
    } else {
      c.push_back(Cell::str(detail::json_list_str(r.result_messages)));
    }
  };
  auto stack_cell = [&] {
    if (!l.stack) return;
    const std::vector<std::string>* lines = rc.npu_dump && rc.npu_dump->stack ? rc.npu_dump->stack->find(n.entry) : nullptr;
    c.push_back(first_of_entry && lines ? Cell::str(detail::py_list_str(*lines)) : na);
  };
  if (l.mode == Mode::tensor) {
    c.push_back(detail::metric_cell(r.metrics[cosine], Cell::Style::cosine));
    c.push_back(detail::metric_cell(r.metrics[euc_dist], Cell::Style::repr));
    for (int k = max_abs_err; k <= five_thousandths; ++k) c.push_back(detail::metric_cell(r.metrics[k], Cell::Style::fixed12));
    stats();
    c.push_back(consistent);
    result_and_messages(true);
    stack_cell();
    c.push_back(Cell::str(detail::py_list_str({n.data_name, b ? b->data_name : std::string("N/A")})));
  } else if (l.mode == Mode::statistics) {
    for (int k = 0; k < 4; ++k) c.push_back(b ? r.stat_diff[k] : na);
    for (int k = 0; k < 4; ++k) c.push_back(b ? r.stat_rel[k] : na);
    stats();
    c.push_back(consistent);
    result_and_messages(true);
    stack_cell();
  } else {
    const Md5Cells m = md5_cells(rc, r);
    c.push_back(Cell::str(m.npu));
    c.push_back(Cell::str(m.bench));
    c.push_back(consistent);
    result_and_messages(l.rules != ResultRules::legacy);
    if (l.rules != ResultRules::legacy) stack_cell();
  }
  return c;
}

}  // namespace match
TD_NAMESPACE_END
