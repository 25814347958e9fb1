// `tensordiff compare | merge | overflow | dump`: whole dumps.
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <tensordiff/distributed/shard.hpp>
#ifndef TD_HAS_MPI
#define TD_HAS_MPI 0
#endif
#if TD_HAS_MPI
#include <tensordiff/distributed/mpi.hpp>
#endif
#include <tensordiff/io/dump_from_folder.hpp>
#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/match/layer_mapping.hpp>
#include <tensordiff/match/mapping_files.hpp>
#include <tensordiff/match/overflow.hpp>
#include <tensordiff/report/csv.hpp>
#include <tensordiff/report/dump_analysis_json.hpp>
#include <tensordiff/report/html_dump.hpp>
#include <tensordiff/report/outputs.hpp>
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

/// Names and messages from a dump, safe for one terminal line.
std::string esc(const std::string& s) { return td::escape_for_message(s, 1000); }

bool is_pass(const std::string& r) { return r == "pass" || r == "Yes"; }
bool is_error(const std::string& r) { return r == "error" || r == "No" || r == "Different"; }

}  // namespace

namespace {

td::match::CompareRequest request_for(const CompareArgs& a) {
  td::match::CompareRequest req;
  req.npu = a.npu;
  req.bench = a.bench;
  req.compat = a.compat == "msprobe" ? td::match::Compat::msprobe : td::match::Compat::tensordiff;
  req.rules = a.legacy_result ? td::match::ResultRules::legacy : td::match::ResultRules::current;
  req.matcher = matcher_for(a);
  req.workers = a.jobs;
  if (!a.steps.empty()) req.steps = td::match::NumberSet::parse(a.steps, "--steps");
  if (!a.ranks.empty()) req.ranks = td::match::NumberSet::parse(a.ranks, "--ranks");
  req.filter = a.filter;
  req.follow_symlinks = a.follow_symlinks;
  return req;
}

/// The flags that shape the outputs: stored in a shard, restored by merge.
nlohmann::json options_json(const CompareArgs& a) {
  return {{"mode", a.mode},         {"fuzzy", a.fuzzy},           {"data_map", a.data_map},         {"cell_map", a.cell_map},
          {"api_map", a.api_map},   {"layer_map", a.layer_map},   {"use_cell_map", a.use_cell_map}, {"use_api_map", a.use_api_map},
          {"compat", a.compat},     {"legacy_result", a.legacy_result}, {"html", a.html},           {"jsonl", a.jsonl},
          {"strict", a.strict},     {"steps", a.steps},           {"ranks", a.ranks},               {"filter", a.filter},
          {"follow_symlinks", a.follow_symlinks}};
}

CompareArgs args_of(const nlohmann::json& o, const nlohmann::json& inputs) {
  CompareArgs a;
  a.npu = inputs.at("npu").get<std::string>();
  a.bench = inputs.at("bench").get<std::string>();
  a.mode = o.at("mode").get<std::string>();
  a.fuzzy = o.at("fuzzy").get<bool>();
  a.data_map = o.at("data_map").get<std::string>();
  a.cell_map = o.at("cell_map").get<std::string>();
  a.api_map = o.at("api_map").get<std::string>();
  a.layer_map = o.at("layer_map").get<std::string>();
  a.use_cell_map = o.at("use_cell_map").get<bool>();
  a.use_api_map = o.at("use_api_map").get<bool>();
  a.compat = o.at("compat").get<std::string>();
  a.legacy_result = o.at("legacy_result").get<bool>();
  a.html = o.at("html").get<bool>();
  a.jsonl = o.at("jsonl").get<bool>();
  a.strict = o.at("strict").get<bool>();
  a.steps = o.at("steps").get<std::string>();
  a.ranks = o.at("ranks").get<std::string>();
  a.filter = o.at("filter").get<std::string>();
  a.follow_symlinks = o.at("follow_symlinks").get<bool>();
  return a;
}

/// Writes the CSVs, summary.json and report (write_compare_outputs: a run that
/// dies leaves no output under a final name). Prints the text summary; returns
/// the exit code.
int write_outputs(const CompareArgs& a, const td::match::DumpComparison& r) {
  if (r.compat == td::match::Compat::msprobe && a.fuzzy && r.mode == td::match::Mode::statistics)
    std::cerr << "tensordiff: warning: msprobe 26.0 cannot produce this table (statistics mode with fuzzy matching "
                 "raises \"Length mismatch\" and writes nothing); tensordiff wrote it with msprobe's other rules\n";
  if (a.mode != "auto" && a.mode != mode_name(r.mode))
    throw td::Error(td::ErrorCategory::mismatch,
                    std::string("--mode ") + a.mode + " was asked for, but the dumps are " + mode_name(r.mode) + "-mode dumps",
                    {a.npu, "", std::nullopt});

  std::size_t pass = 0, warn = 0, err = 0, unmatched = 0, bench_only = 0, unreadable = 0;
  std::string first_unreadable;
  for (const auto& rc : r.ranks) {
    for (const auto& row : rc.rows) {
      if (!row.data_file_error.empty() && unreadable++ == 0) first_unreadable = row.data_file_error;
      if (!row.matched()) ++unmatched;
      else if (is_pass(row.result)) ++pass;
      else if (is_error(row.result)) ++err;
      else ++warn;
    }
    bench_only += rc.bench_only.size();
  }
  const auto written = td::report::write_compare_outputs(r, a.out_dir, {a.html, a.jsonl, a.npu, a.bench});

  std::cout << "tensordiff compare (" << mode_name(r.mode) << " mode, " << r.ranks.size() << " rank"
            << (r.ranks.size() == 1 ? "" : "s") << ")\n"
            << "  rows: " << r.row_count() << "  pass " << pass << "  warning " << warn << "  error " << err
            << "  unmatched " << unmatched << "  bench-only " << bench_only << "\n";
  if (r.first_divergence) {
    const auto& f = *r.first_divergence;
    // No entry whose outputs fail while its inputs pass: name the first failing item's entry.
    std::cout << "  first divergence: " << esc(f.entry.empty() ? f.first_item_entry : f.entry);
    if (!f.step.empty() || f.rank >= 0) std::cout << " (" << esc(f.label) << ")";
    std::cout << "\n";
    // The first failing row, when it is not one of the entry's failing outputs (an input, an
    // unmatched item, a row of an earlier entry).
    if (!f.first_item.empty() && (f.first_item_entry != f.entry || f.first_item.find(".output.") == std::string::npos))
      std::cout << "    first failing item: " << esc(f.first_item) << "\n";
    // The first divergent entry can be a module whose children diverge too;
    // the origin is the innermost such module (and the first such API call).
    if (f.origin_module && *f.origin_module != f.entry) std::cout << "    origin module: " << esc(*f.origin_module) << "\n";
    if (f.origin_api && *f.origin_api != f.entry) std::cout << "    origin api: " << esc(*f.origin_api) << "\n";
    if (!std::isnan(f.min_cosine)) std::cout << "    min cosine " << f.min_cosine;
    if (!std::isnan(f.max_abs_err)) std::cout << "    max abs err " << f.max_abs_err;
    std::cout << "\n";
    for (const auto& m : f.messages) std::cout << "    " << esc(m) << "\n";
    for (const auto& frame : f.stack) {  // stack.json lines hold "File …, line N, in f, \n code"
      std::string line = frame;
      for (char& ch : line) ch = ch == '\n' ? ' ' : ch;
      std::cout << "    | " << esc(line) << "\n";
    }
  } else {
    std::cout << "  first divergence: none\n";
  }
  for (const auto& f : written) std::cout << "  wrote " << f << "\n";
  std::cout.flush();
  // Also under --compat msprobe, whose table lets such rows pass.
  if (unreadable)
    std::cerr << "tensordiff: " << unreadable << " data file(s) could not be read; first: " << first_unreadable << "\n";
  return err > 0 || unreadable > 0 || (a.strict && warn > 0) ? 1 : 0;
}

/// Test hook: TD_TEST_DIE_ON_PROCESS=k kills process k (SIGKILL) when it reads its first tensor.
void maybe_die(td::match::CompareRequest& req, int process) {
  const char* k = std::getenv("TD_TEST_DIE_ON_PROCESS");
  if (!k || std::atoi(k) != process) return;
  req.loader = [](const std::string&) -> td::Tensor {
    std::raise(SIGKILL);
    return {};
  };
}

/// Started by mpirun / srun (the launchers' environment), so MPI is worth starting.
bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

/// More than one process of a launcher (mpirun -n 2, srun -n 2), as far as its environment says.
bool several_launched() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"})
    if (const char* n = std::getenv(v); n && std::atoi(n) > 1) return true;
  return false;
}

#if TD_HAS_MPI

/// `tensordiff compare` as one process of an MPI job: process 0 writes everything.
int run_compare_mpi(const CompareArgs& a, td::match::CompareRequest req) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  int me = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code = 0;
  try {
    std::unique_ptr<td::report::Progress> progress;
    if (me == 0) {
      progress = std::make_unique<td::report::Progress>(0, 0, !a.quiet);
      req.progress = [p = progress.get()](std::size_t done, std::size_t total) { p->set(done, total); };
    }
    maybe_die(req, me);
    const auto r = td::distributed::mpi_compare(req, MPI_COMM_WORLD);
    if (progress) progress->finish();
    if (me == 0) code = write_outputs(a, *r);
  } catch (const std::exception& e) {
    // Another process may wait for this one: end the job (the message first).
    std::fprintf(stderr, "tensordiff: %s\n", e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);  // every process exits as process 0 does
  MPI_Finalize();
  return code;
}
#endif

}  // namespace

std::string version_text() {
#if TD_HAS_MPI
  return std::string(td::version_string) + " (MPI: built with " + td::distributed::mpi_library_version() + ")";
#else
  return std::string(td::version_string) + " (MPI: not built; rebuild with libopenmpi-dev for mpirun/srun)";
#endif
}

int run_compare(const CompareArgs& a) {
  td::match::CompareRequest req = request_for(a);
  if (several_launched()) {  // N copies of one whole run would race for OUT
    if (!a.shard.empty())
      throw td::Error(td::ErrorCategory::invalid_argument, "--shard is for runs without mpirun/srun; under MPI drop it (the processes share the work)");
    if (!TD_HAS_MPI)
      throw td::Error(td::ErrorCategory::invalid_argument, "this tensordiff was built without MPI: run it as one process, or rebuild with libopenmpi-dev");
    if (!launched_by_mpi())
      throw td::Error(td::ErrorCategory::invalid_argument, "started as several tasks without MPI's environment (with srun: --mpi=pmix)");
  }
  if (!a.shard.empty()) {  // one share, written for `tensordiff merge`
    const auto [i, n] = td::distributed::parse_shard(a.shard);
    const auto s = td::distributed::write_shard(req, i, n, options_json(a), a.out_dir);
    std::cout << "tensordiff compare: shard " << i << "/" << n << ": " << s.rows << " tensor rows of " << s.runs.size() << " run"
              << (s.runs.size() == 1 ? "" : "s") << "\n  wrote " << s.file << "\n";
    return 0;
  }
#if TD_HAS_MPI
  if (launched_by_mpi()) return run_compare_mpi(a, std::move(req));
#endif
  td::report::Progress progress(0, 0, !a.quiet);
  req.progress = [&](std::size_t done, std::size_t total) { progress.set(done, total); };
  maybe_die(req, 0);
  const td::match::DumpComparison r = td::match::run_compare(req);
  progress.finish();
  return write_outputs(a, r);
}

int run_merge(const MergeArgs& m) {
  std::vector<fs::path> dirs;
  for (const auto& d : m.shard_dirs) dirs.push_back(fs::absolute(d));
  td::distributed::ShardSet shards(dirs);
  CompareArgs a;
  try {
    a = args_of(shards.options(), shards.inputs());
  } catch (const nlohmann::json::exception& e) {
    throw td::Error(td::ErrorCategory::format, std::string("merge: the shards' options are not this tensordiff's: ") + e.what(),
                    {(dirs.front() / td::distributed::shard_file_name).string(), "options", std::nullopt});
  }
  const fs::path out_abs = fs::absolute(m.out_dir);
  a.quiet = m.quiet;
  // Paths in the outputs are as the shards were given them: resolve from there.
  const fs::path cwd = shards.inputs().at("cwd").get<std::string>();
  std::error_code ec;
  fs::current_path(cwd, ec);
  if (ec) throw td::Error(td::ErrorCategory::io, "merge: cannot enter the folder the shards ran in: " + ec.message(), {cwd.string(), "", std::nullopt});
  // The summary names OUT in the user's words when they still mean the same folder here.
  const bool same = fs::path(m.out_dir).is_relative() && fs::weakly_canonical(fs::absolute(m.out_dir)) == fs::weakly_canonical(out_abs);
  a.out_dir = same ? m.out_dir : out_abs.string();
  td::match::CompareRequest req = request_for(a);
  const auto pairs = td::match::folder_pairs(req);
  const td::distributed::Plan plan = td::distributed::Plan::of(pairs, shards.count());
  if (td::distributed::shard_inputs(req, pairs, plan) != shards.inputs())
    throw td::Error(td::ErrorCategory::mismatch,
                    "merge: the dumps changed since the shards ran (runs or their sizes differ): " + td::distributed::shard_inputs(req, pairs, plan)["runs"].dump() +
                        " now, " + shards.inputs()["runs"].dump() + " then",
                    {a.npu, "", std::nullopt});
  req.executor = std::make_shared<td::distributed::GatherExecutor>(
      plan, -1, [&](std::size_t u, std::size_t i, int o) { return shards.take(u, i, o); });
  const td::match::DumpComparison r = td::match::run_compare(req);
  return write_outputs(a, r);
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
      std::cout << esc(rep.label.empty() ? a.dump : rep.label) << ": " << rep.findings.size() << " anomalous API(s)\n";
      for (const auto& f : rep.findings)
        std::cout << "  " << f.scene << "  " << f.kind << "  " << esc(f.op_name) << "\n";
      if (rep.first_critical) std::cout << "  overflow starts at " << esc(rep.findings[*rep.first_critical].op_name) << "\n";
    }
  }
  bool any = false;
  for (const auto& rep : reports) any = any || !rep.findings.empty();
  return any ? 1 : 0;
}

int run_dump(const DumpArgs& a) {
  td::io::DumpWriterOptions o;
  o.task = a.task == "tensor" ? td::io::DumpTask::tensor : a.task == "md5" ? td::io::DumpTask::md5 : td::io::DumpTask::statistics;
  o.framework = a.framework;
  o.level = "L1";
  o.rank = a.rank;
  o.step = a.step;
  td::io::DumpWriter w(a.to, o);
  const std::size_t n = td::io::convert_tensor_folder(a.from, w, a.prefix);
  w.flush();
  std::cout << "wrote " << n << " entries to " << (w.dir() / "dump.json").string() << "\n";
  return 0;
}

}  // namespace cli
