// tensordiff — every file a dump compare writes, in one call (the CLI's
// `compare -o DIR` and the Python module's compare_dumps(out=DIR)):
//
//   report::write_compare_outputs(result, "out", {/*html=*/true, /*jsonl=*/false, npu_dir, bench_dir});
//
// A CSV per rank (and step), a bench-only CSV where bench items had no NPU
// partner (not under --compat msprobe, which drops them), optional JSON lines,
// report.html and summary.json. Every write is checked (a full disk is an error
// naming the file, never a silently short table), and every file is written into
// a hidden folder inside the output folder first and renamed into place once all are complete:
// a compare that fails or is killed leaves no half-written file under a final name.
#pragma once
#include <cerrno>
#include <cstdlib>  // mkdtemp (POSIX)
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>
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

namespace detail {

/// `dir`/.tensordiff-partial-<pid>-XXXXXX: a new folder for each call, made by mkdtemp (atomic, so
/// processes, threads and libraries writing into one `dir` never share one), removed with what it
/// still holds when it goes out of scope. Only a killed process leaves it behind, and never under a
/// final name.
class StagingFolder {
 public:
  explicit StagingFolder(const std::filesystem::path& dir) {
    std::string name = (dir / (".tensordiff-partial-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(name.data()) == nullptr)
      throw Error(ErrorCategory::io, std::string("cannot create folder: ") + std::strerror(errno), {name, "", std::nullopt});
    path_ = name;
  }
  StagingFolder(const StagingFolder&) = delete;
  StagingFolder& operator=(const StagingFolder&) = delete;
  ~StagingFolder() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);  // best effort: an error is already on its way, or all moved out
  }
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

/// Writes every output of `r` into the staging folder `dir`; appends each path to `written` before
/// writing it.
inline void write_staged_outputs(const match::DumpComparison& r, const std::string& dir, const OutputOptions& o,
                                 const std::string& timestamp, std::vector<std::string>& written) {
  namespace fs = std::filesystem;
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
}

/// `e`, a failed write into the staging folder, told by the name the user asked for (the staging
/// folder is gone by the time the message is read); the staging path follows in the reason.
inline Error naming_final_path(const Error& e, const StagingFolder& stage, const std::string& out_dir) {
  const std::filesystem::path staged = e.context().file;
  if (staged.parent_path() != stage.path()) return e;
  return e.with_final_file(staged.string(), (std::filesystem::path(out_dir) / staged.filename()).string());
}

}  // namespace detail

/// Writes the outputs of `r` into `out_dir` (created if missing); returns the paths written, in order.
/// `timestamp` names the CSVs (msprobe's compare_result_<rank>_<timestamp>.csv). The files appear
/// under their names only once every one of them is complete (see the top of this header).
inline std::vector<std::string> write_compare_outputs(const match::DumpComparison& r, const std::string& out_dir,
                                                      const OutputOptions& o = {},
                                                      const std::string& timestamp = timestamp_now()) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot create output folder: " + ec.message(), {out_dir, "", std::nullopt});
  const detail::StagingFolder stage(out_dir);
  std::vector<std::string> written;
  try {
    detail::write_staged_outputs(r, stage.path().string(), o, timestamp, written);
  } catch (const Error& e) {
    throw detail::naming_final_path(e, stage, out_dir);
  }
  for (auto& f : written) {
    const fs::path final_path = fs::path(out_dir) / fs::path(f).filename();
    fs::rename(f, final_path, ec);
    if (ec) throw Error(ErrorCategory::io, "cannot move into place: " + ec.message(), {final_path.string(), "", std::nullopt});
    f = final_path.string();
  }
  return written;
}

}  // namespace report
TD_NAMESPACE_END
