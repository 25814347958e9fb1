// `tensordiff compare | overflow`: whole dumps.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/match/layer_mapping.hpp>
#include <tensordiff/match/mapping_files.hpp>
#include <tensordiff/match/overflow.hpp>
#include <tensordiff/report/csv.hpp>
#include <tensordiff/report/dump_analysis_json.hpp>
#include <tensordiff/report/html_dump.hpp>
#include <tensordiff/report/progress.hpp>

#include "commands.hpp"

namespace td = tensordiff;
namespace fs = std::filesystem;

namespace cli {
namespace {

std::shared_ptr<const td::match::Matcher> matcher_for(const CompareArgs& a) {
  const int chosen = int(a.fuzzy) + int(!a.data_map.empty()) + int(a.use_cell_map) + int(a.use_api_map) +
                     int(!a.layer_map.empty());
  if (chosen > 1)
    throw td::Error(td::ErrorCategory::invalid_argument,
                    "choose one of --fuzzy, --data-map, --cell-map, --api-map, --layer-map");
  if (a.fuzzy) return std::make_shared<td::match::FuzzyMatcher>();
  if (!a.data_map.empty()) return td::match::load_data_mapping(a.data_map);
  if (a.use_cell_map) return td::match::load_cell_mapping(a.cell_map);
  if (a.use_api_map) {
    std::vector<std::string> skipped;
    auto m = td::match::load_api_mapping(a.api_map, &skipped);
    for (const auto& s : skipped) std::cerr << "tensordiff: warning: " << s << "\n";
    return m;
  }
  if (!a.layer_map.empty()) return td::match::load_layer_mapping(a.layer_map);
  return nullptr;
}

const char* mode_name(td::match::Mode m) {
  switch (m) {
    case td::match::Mode::tensor: return "tensor";
    case td::match::Mode::statistics: return "statistics";
    case td::match::Mode::md5: return "md5";
  }
  return "?";
}

bool is_pass(const std::string& r) { return r == "pass" || r == "Yes"; }
bool is_error(const std::string& r) { return r == "error" || r == "No" || r == "Different"; }

}  // namespace

int run_compare(const CompareArgs& a) {
  td::match::CompareRequest req;
  req.npu = a.npu;
  req.bench = a.bench;
  req.compat = a.compat == "msprobe" ? td::match::Compat::msprobe : td::match::Compat::tensordiff;
  req.rules = a.legacy_result ? td::match::ResultRules::legacy : td::match::ResultRules::current;
  req.matcher = matcher_for(a);
  req.workers = a.jobs;
  td::report::Progress progress(0, 0, !a.quiet);
  req.progress = [&](std::size_t done, std::size_t total) { progress.set(done, total); };

  const td::match::DumpComparison r = td::match::run_compare(req);
  progress.finish();
  if (req.compat == td::match::Compat::msprobe && a.fuzzy && r.mode == td::match::Mode::statistics)
    std::cerr << "tensordiff: warning: msprobe 26.0 cannot produce this table (statistics mode with fuzzy matching "
                 "raises \"Length mismatch\" and writes nothing); tensordiff wrote it with msprobe's other rules\n";
  if (a.mode != "auto" && a.mode != mode_name(r.mode))
    throw td::Error(td::ErrorCategory::mismatch,
                    std::string("--mode ") + a.mode + " was asked for, but the dumps are " + mode_name(r.mode) + "-mode dumps",
                    {a.npu, "", std::nullopt});

  std::error_code ec;
  fs::create_directories(a.out_dir, ec);
  if (ec) throw td::Error(td::ErrorCategory::io, "cannot create output folder: " + ec.message(), {a.out_dir, "", std::nullopt});
  const std::string ts = td::report::timestamp_now();
  std::size_t pass = 0, warn = 0, err = 0, unmatched = 0, bench_only = 0;
  std::vector<std::string> written;
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const auto& rc = r.ranks[i];
    const std::string base =
        (fs::path(a.out_dir) / td::report::result_file_name(rc, r.compat, r.multi_rank, ts)).string();
    for (const auto& f : td::report::write_csv_file(rc, r.layout_for(rc), base)) written.push_back(f);
    if (!rc.bench_only.empty() && req.compat != td::match::Compat::msprobe) {
      const std::string f = base.substr(0, base.size() - 4) + "_bench_only.csv";
      std::ofstream os(f, std::ios::binary);
      td::report::write_bench_only_csv(os, rc);
      written.push_back(f);
    }
    if (a.jsonl) {
      const std::string f = base.substr(0, base.size() - 4) + ".jsonl";
      std::ofstream os(f, std::ios::binary);
      td::report::write_jsonl(os, rc, r.layout_for(rc));
      written.push_back(f);
    }
    for (const auto& row : rc.rows) {
      if (!row.matched()) ++unmatched;
      else if (is_pass(row.result)) ++pass;
      else if (is_error(row.result)) ++err;
      else ++warn;
    }
    bench_only += rc.bench_only.size();
  }
  if (a.html) {  // one page for every rank and step
    const std::string f = (fs::path(a.out_dir) / "report.html").string();
    td::report::write_html(td::report::html_report(r, a.npu, a.bench), f);
    written.push_back(f);
  }
  {
    std::ofstream os(fs::path(a.out_dir) / "summary.json", std::ios::binary);
    os << td::report::summary_json(r).dump(2) << "\n";
    written.push_back((fs::path(a.out_dir) / "summary.json").string());
  }

  std::cout << "tensordiff compare (" << mode_name(r.mode) << " mode, " << r.ranks.size() << " rank"
            << (r.ranks.size() == 1 ? "" : "s") << ")\n"
            << "  rows: " << r.row_count() << "  pass " << pass << "  warning " << warn << "  error " << err
            << "  unmatched " << unmatched << "  bench-only " << bench_only << "\n";
  if (r.first_divergence) {
    const auto& f = *r.first_divergence;
    // No entry whose outputs fail while its inputs pass: name the first failing item's entry.
    std::cout << "  first divergence: " << (f.entry.empty() ? f.first_item_entry : f.entry);
    if (!f.step.empty() || f.rank >= 0) std::cout << " (" << f.label << ")";
    std::cout << "\n";
    // The first failing row, when it is not one of the entry's failing outputs (an input, an
    // unmatched item, a row of an earlier entry).
    if (!f.first_item.empty() && (f.first_item_entry != f.entry || f.first_item.find(".output.") == std::string::npos))
      std::cout << "    first failing item: " << f.first_item << "\n";
    // The first divergent entry can be a module whose children diverge too;
    // the origin is the innermost such module (and the first such API call).
    if (f.origin_module && *f.origin_module != f.entry) std::cout << "    origin module: " << *f.origin_module << "\n";
    if (f.origin_api && *f.origin_api != f.entry) std::cout << "    origin api: " << *f.origin_api << "\n";
    if (!std::isnan(f.min_cosine)) std::cout << "    min cosine " << f.min_cosine;
    if (!std::isnan(f.max_abs_err)) std::cout << "    max abs err " << f.max_abs_err;
    std::cout << "\n";
    for (const auto& m : f.messages) std::cout << "    " << m << "\n";
    for (const auto& frame : f.stack) {  // stack.json lines hold "File …, line N, in f, \n code"
      std::string line = frame;
      for (char& ch : line) ch = ch == '\n' ? ' ' : ch;
      std::cout << "    | " << line << "\n";
    }
  } else {
    std::cout << "  first divergence: none\n";
  }
  for (const auto& f : written) std::cout << "  wrote " << f << "\n";
  return err > 0 || (a.strict && warn > 0) ? 1 : 0;
}

int run_overflow(const OverflowArgs& a) {
  const fs::path p(a.dump);
  std::vector<td::match::OverflowReport> reports;
  if (fs::is_regular_file(p)) reports.push_back(td::match::scan_overflow(td::io::load_dump_folder(p.parent_path())));
  else reports = td::match::scan_overflow_folder(p);
  if (a.json) {
    std::cout << td::match::overflow_json(reports).dump(2) << "\n";
  } else {
    for (const auto& rep : reports) {
      std::cout << (rep.label.empty() ? a.dump : rep.label) << ": " << rep.findings.size() << " anomalous API(s)\n";
      for (const auto& f : rep.findings)
        std::cout << "  " << f.scene << "  " << f.kind << "  " << f.op_name << "\n";
      if (rep.first_critical) std::cout << "  overflow starts at " << rep.findings[*rep.first_critical].op_name << "\n";
    }
  }
  bool any = false;
  for (const auto& rep : reports) any = any || !rep.findings.empty();
  return any ? 1 : 0;
}

}  // namespace cli
