// tensordiff — msprobe-compatible CSV and typed JSON-lines result tables.
//
//   report::write_csv_file(rank, result.layout_for(rank), dir / report::result_file_name(rank_number, ts));
//   report::write_jsonl(std::cout, rank, result.layout_for(rank));
//
// The CSV equals msprobe's (spec §3.1): its header for the mode, rows in NPU
// dump order, numbers as Python writes them, the stack on the first row of
// each API, and its formula-injection guard (cells starting with + - = % @
// that are not numbers): msprobe refuses to write such a table
// (CsvOptions::Formula::reject, the Compat::msprobe choice); tensordiff's
// default prefixes the cell with a single quote so spreadsheets show it as text.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../match/table.hpp"
#include "../match/cell.hpp"
#include "../io/detail/output_file.hpp"

TD_NAMESPACE_BEGIN
namespace report {

/// How write_csv_file() writes the table.
struct CsvOptions {
  /// A non-numeric cell starting with + - = % @ (a spreadsheet formula): prefix it with a single
  /// quote (tensordiff's default, `escape`), or refuse to write the table (msprobe's choice,
  /// `reject`, which throws Error{security} naming the row and column).
  enum class Formula : std::uint8_t { escape, reject };
  Formula formula = Formula::escape;  ///< see Formula
  std::size_t rows_per_file = 1000000;  ///< msprobe splits files into _part_i beyond this
};

/// "YYYYmmddHHMMSS" in local time (msprobe's file-name timestamp).
inline std::string timestamp_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  return buf;
}

/// compare_result_{ts}.csv, or compare_result_rank{N}_{ts}.csv for multi-rank
/// compares (rank >= 0), with "step{S}_" in front of rank when `step` is set.
inline std::string result_file_name(int rank, const std::string& timestamp, const std::string& step = "",
                                    const std::string& ext = ".csv") {
  std::string s = "compare_result_";
  if (!step.empty()) s += step + "_";
  if (rank >= 0) s += "rank" + std::to_string(rank) + "_";
  return s + timestamp + ext;
}

/// The result file of one rank (`multi_rank`: DumpComparison::multi_rank). Compat::msprobe:
/// msprobe's suffix, the NPU rank folder's own name (`compare_result_rank3_<ts>.csv`,
/// `compare_result_rank_<ts>.csv`, `compare_result_proc1234_<ts>.csv`); otherwise
/// `compare_result_rank{N}_<ts>.csv` for multi-rank dumps. Per-step files get `step{N}_` first.
inline std::string result_file_name(const match::RankComparison& rc, match::Compat compat, bool multi_rank,
                                    const std::string& timestamp) {
  if (compat != match::Compat::msprobe) return result_file_name(multi_rank ? std::max(rc.rank, 0) : -1, timestamp, rc.step);
  std::string s = "compare_result_";
  if (!rc.step.empty()) s += rc.step + "_";
  if (!rc.npu_folder.empty()) s += rc.npu_folder + "_";
  return s + timestamp + ".csv";
}

namespace detail {
inline bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size();
}

/// Python csv QUOTE_MINIMAL.
inline void put_field(std::ostream& os, const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) {
    os << s;
    return;
  }
  os << '"';
  for (char c : s) {
    if (c == '"') os << '"';
    os << c;
  }
  os << '"';
}

inline std::string guard(const std::string& s, const CsvOptions& o, std::size_t row, const std::string& column) {
  if (s.empty()) return s;
  const char c = s[0];
  if ((c == '+' || c == '-' || c == '=' || c == '%' || c == '@') && !looks_numeric(s)) {
    if (o.formula == CsvOptions::Formula::reject)
      throw Error(ErrorCategory::security, "cell \"" + s + "\" could be run as a spreadsheet formula; not writing the table",
                  {"", "row " + std::to_string(row) + ", column " + column, std::nullopt});
    return "'" + s;
  }
  return s;
}

inline void put_row(std::ostream& os, const std::vector<std::string>& cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) os << ',';
    put_field(os, cells[i]);
  }
  os << '\n';
}
}  // namespace detail

/// The table as CSV strings (header first), after the formula guard.
inline std::vector<std::vector<std::string>> csv_table(const match::RankComparison& rc, const match::TableLayout& l,
                                                       const CsvOptions& o = {}) {
  std::vector<std::vector<std::string>> t;
  const std::vector<std::string> hdr = match::table_header(l);  // a copy: t grows below
  t.push_back(hdr);
  std::size_t prev_entry = static_cast<std::size_t>(-1);
  for (std::size_t i = 0; i < rc.rows.size(); ++i) {
    const auto& r = rc.rows[i];
    const std::size_t e = rc.npu_items[r.npu].entry_index;
    const auto cells = match::row_cells(rc, r, l, e != prev_entry);
    prev_entry = e;
    std::vector<std::string> s;
    s.reserve(cells.size());
    for (std::size_t k = 0; k < cells.size(); ++k) s.push_back(detail::guard(csv_text(cells[k]), o, i + 1, hdr[k]));
    t.push_back(std::move(s));
  }
  return t;
}

/// Writes one rank's table.
inline void write_csv(std::ostream& os, const match::RankComparison& rc, const match::TableLayout& l, const CsvOptions& o = {}) {
  for (const auto& row : csv_table(rc, l, o)) detail::put_row(os, row);
}

/// Writes the table to `path`, split into `<stem>_part_{i}.csv` files of at
/// most rows_per_file rows as msprobe does. Returns the files written.
inline std::vector<std::string> write_csv_file(const match::RankComparison& rc, const match::TableLayout& l, const std::string& path,
                                               const CsvOptions& o = {}) {
  const auto t = csv_table(rc, l, o);
  std::vector<std::string> files;
  const std::size_t rows = t.size() - 1;
  const std::size_t per = o.rows_per_file ? o.rows_per_file : rows + 1;
  const std::size_t parts = rows <= per ? 1 : (rows + per - 1) / per;
  for (std::size_t p = 0; p < parts; ++p) {
    std::string f = path;
    if (parts > 1) {
      const auto dot = path.rfind('.');
      f = path.substr(0, dot) + "_part_" + std::to_string(p + 1) + (dot == std::string::npos ? "" : path.substr(dot));
    }
    io::detail::write_output_file(f, [&](std::ostream& os) {
      detail::put_row(os, t.front());
      for (std::size_t i = p * per; i < std::min(rows, (p + 1) * per); ++i) detail::put_row(os, t[i + 1]);
    });
    files.push_back(f);
  }
  return files;
}

/// Bench items no NPU item was paired with (msprobe drops them silently).
inline void write_bench_only_csv(std::ostream& os, const match::RankComparison& rc) {
  detail::put_row(os, {"Bench Name", "Bench Dtype", "Bench Tensor Shape", "Bench max", "Bench min", "Bench mean", "Bench l2norm", "Data_name"});
  for (std::size_t j : rc.bench_only) {
    const auto& b = rc.bench_items[j];
    detail::put_row(os, {b.name, b.dtype, b.shape, csv_text(match::stat_cell(b.max)), csv_text(match::stat_cell(b.min)),
                         csv_text(match::stat_cell(b.mean)), csv_text(match::stat_cell(b.norm)), b.data_name});
  }
}

// --- JSON lines ------------------------------------------------------------------

/// A cell as typed JSON: numbers unrounded (non-finite as "nan" / "inf" / "-inf").
inline nlohmann::ordered_json cell_json(const match::Cell& c) {
  switch (c.kind) {
    case match::Cell::Kind::text: return c.text;
    case match::Cell::Kind::integer: return c.integer;
    case match::Cell::Kind::boolean: return c.boolean;
    case match::Cell::Kind::null: return nullptr;
    case match::Cell::Kind::real:
      if (std::isnan(c.real)) return "nan";
      if (std::isinf(c.real)) return c.real > 0 ? "inf" : "-inf";
      return c.real;
  }
  return nullptr;
}

/// One JSON object per row, keys = the CSV header, typed values; list-valued
/// columns (Err_message, NPU_Stack_Info, Data_name) are arrays; plus
/// "match_reason" and, in tensor mode, "max_abs_index" / "max_rel_index".
inline void write_jsonl(std::ostream& os, const match::RankComparison& rc, const match::TableLayout& l) {
  const auto hdr = match::table_header(l);
  std::size_t prev_entry = static_cast<std::size_t>(-1);
  for (const auto& r : rc.rows) {
    const std::size_t e = rc.npu_items[r.npu].entry_index;
    const bool first = e != prev_entry;
    prev_entry = e;
    const auto cells = match::row_cells(rc, r, l, first);
    nlohmann::ordered_json j;
    for (std::size_t k = 0; k < hdr.size(); ++k) {
      const std::string& h = hdr[k];
      if (h == "Err_message" && l.rules != match::ResultRules::legacy) j[h] = r.result_messages;
      else if (h == "Data_name") j[h] = {rc.npu_items[r.npu].data_name, r.bench >= 0 ? rc.bench_items[static_cast<std::size_t>(r.bench)].data_name : "N/A"};
      else if (h == "NPU_Stack_Info") {
        const auto* s = first && rc.npu_dump && rc.npu_dump->stack ? rc.npu_dump->stack->find(rc.npu_items[r.npu].entry) : nullptr;
        j[h] = s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json("N/A");
      } else j[h] = cell_json(cells[k]);
    }
    j["match_reason"] = r.match_reason;
    if (l.mode == match::Mode::tensor && r.compared) {
      j["max_abs_index"] = r.max_abs_index == no_index ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.max_abs_index);
      j["max_rel_index"] = r.max_rel_index == no_index ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.max_rel_index);
    }
    os << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
  }
}

}  // namespace report
TD_NAMESPACE_END
