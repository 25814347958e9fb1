// tensordiff — every file a dump compare writes, in one call (the CLI's
// `compare -o DIR` and the Python module's compare_dumps(out=DIR)):
//
//   report::write_compare_outputs(result, "out", {/*html=*/true, /*jsonl=*/false, npu_dir, bench_dir});
//
// A CSV per rank (and step), a bench-only CSV where bench items had no NPU
// partner (not under --compat msprobe, which drops them), optional JSON lines,
// report.html and summary.json. Every write is checked (a full disk is an error
// naming the file, never a silently short table).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "../io/detail/output_file.hpp"
#include "csv.hpp"
#include "dump_analysis_json.hpp"
#include "html_dump.hpp"

TD_NAMESPACE_BEGIN
namespace report {

/// What write_compare_outputs writes besides the CSVs and summary.json.
struct OutputOptions {
  bool html = true;         ///< report.html (one page for every rank and step)
  bool jsonl = false;       ///< a typed JSON-lines table beside each CSV
  std::string npu_label;    ///< the NPU side's path, shown in the report
  std::string bench_label;  ///< the bench side's path, shown in the report
};

/// Writes the outputs of `r` into `dir` (created if missing); returns the paths written, in order.
/// `timestamp` names the CSVs (msprobe's compare_result_<rank>_<timestamp>.csv).
inline std::vector<std::string> write_compare_outputs(const match::DumpComparison& r, const std::string& dir,
                                                      const OutputOptions& o = {},
                                                      const std::string& timestamp = timestamp_now()) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot create output folder: " + ec.message(), {dir, "", std::nullopt});
  std::vector<std::string> written;
  for (const auto& rc : r.ranks) {
    const std::string base = (fs::path(dir) / result_file_name(rc, r.compat, r.multi_rank, timestamp)).string();
    for (auto& f : write_csv_file(rc, r.layout_for(rc), base)) written.push_back(std::move(f));
    const std::string stem = base.substr(0, base.size() - 4);
    if (!rc.bench_only.empty() && r.compat != match::Compat::msprobe) {
      written.push_back(stem + "_bench_only.csv");
      io::detail::write_output_file(written.back(), [&](std::ostream& os) { write_bench_only_csv(os, rc); });
    }
    if (o.jsonl) {
      written.push_back(stem + ".jsonl");
      io::detail::write_output_file(written.back(), [&](std::ostream& os) { write_jsonl(os, rc, r.layout_for(rc)); });
    }
  }
  if (o.html) {
    written.push_back((fs::path(dir) / "report.html").string());
    write_html(html_report(r, o.npu_label, o.bench_label), written.back());
  }
  written.push_back((fs::path(dir) / "summary.json").string());
  io::detail::write_output_file(written.back(), [&](std::ostream& os) { os << summary_json(r).dump(2) << "\n"; });
  return written;
}

}  // namespace report
TD_NAMESPACE_END
