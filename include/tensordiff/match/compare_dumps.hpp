// tensordiff — compare two msprobe dumps (or two folders of tensor files).
//
// Usage (what `tensordiff compare` does):
//
//   #include <tensordiff/match/compare_dumps.hpp>   // links tensordiff::json (+ ::yaml for mapping files)
//   #include <tensordiff/report/csv.hpp>
//   namespace td = tensordiff;
//
//   td::match::CompareRequest req;
//   req.npu = "npu_dump/step0";          // a rank folder, a step folder with rank{N}/ (or proc*/)
//   req.bench = "gpu_dump/step0";        // subfolders, a dump root with step{N}/ folders, a dump.json,
//                                        // or a plain folder of .npy/.pt files
//   req.compat = td::match::Compat::msprobe;          // reproduce msprobe's quirks (default: fixed)
//   req.rules = td::match::ResultRules::legacy;        // `Accuracy Reached or Not` instead of Result
//   req.matcher = std::make_shared<td::match::FuzzyMatcher>();   // or load_data_mapping / load_cell_mapping /
//                                                                // load_api_mapping (mapping_files.hpp),
//                                                                // load_layer_mapping (layer_mapping.hpp)
//   req.divergence.criterion = td::match::DivergenceOptions::Criterion::any_difference;  // default: Result
//   td::match::DumpComparison r = td::match::run_compare(req);   // throws td::Error on bad input
//
//   const std::string ts = td::report::timestamp_now();
//   for (const auto& rank : r.ranks)                              // one per rank (and step)
//     td::report::write_csv_file(rank, r.layout_for(rank),
//         (out_dir / td::report::result_file_name(rank, r.compat, r.multi_rank, ts)).string());
//   // also: td::report::write_jsonl(os, rank, layout), write_bench_only_csv(os, rank),
//   //       report::summary_json(r), rollup_json(r.rollups[k]) (report/dump_analysis_json.hpp),
//   //       match::scan_overflow_folder(dir) + overflow_json(...) (match/overflow.hpp)
//   if (r.first_divergence) ...   // step, rank, entry, stack and the rules that tripped
//   r.ranks[k].rows, r.ranks[k].bench_only, r.rollups[k], r.divergences[k]   // everything typed
//
// Mode (tensor / statistics / md5) is detected from the dumps; different
// modes on the two sides are an Error. Tensor mode loads each pair lazily
// through the io registry (npy, pt, ...) and compares `workers` pairs at a
// time, so at most that many pairs are in memory.
#pragma once
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "../io/registry.hpp"
#include "../metrics/compare.hpp"
#include "analysis.hpp"
#include "rules.hpp"

TD_NAMESPACE_BEGIN
namespace match {

/// Loads one data file (a .pt / .npy holding one tensor).
using TensorLoader = std::function<Tensor(const std::string& path)>;

/// The default loader: the io registry's generic loader (memory-mapped).
inline Tensor load_single_tensor(const std::string& path) {
  std::vector<io::LoadedTensor> all = io::load(path);  // regular files only, never blocks
  if (all.size() != 1)
    throw Error(ErrorCategory::format, "expected one tensor in the file, found " + std::to_string(all.size()), {path, "", std::nullopt});
  return std::move(all.front().tensor);
}

struct CompareRequest;

/// Where the tensor pairs of a run are computed (the seam for distributed runs,
/// see distributed/). The default (no executor) computes every pair in this
/// process on `workers` threads; an executor may compute some rows here with
/// compute_tensor_rows() and fetch the others' compare columns from elsewhere.
class RowExecutor {
 public:
  virtual ~RowExecutor() = default;
  /// Fills the compare columns of every row of `rc`, a tensor-mode run that is
  /// the `unit`-th (step, rank) folder pair in execution order (see folder_pairs()).
  virtual void compute(RankComparison& rc, const CompareRequest& req, std::size_t unit) = 0;
};

/// Closed ranges of numbers ("0,3-7" → {0,0},{3,7}); empty = everything.
struct NumberSet {
  std::vector<std::pair<long, long>> ranges;  ///< closed ranges; none = every number
  /// True when `n` is in a range (or there are none).
  bool contains(long n) const {
    if (ranges.empty()) return true;
    for (const auto& [lo, hi] : ranges)
      if (n >= lo && n <= hi) return true;
    return false;
  }
  /// Parses "0,3-7"; throws Error naming `what` on anything else.
  static NumberSet parse(const std::string& text, const std::string& what) {
    NumberSet s;
    std::size_t i = 0;
    auto bad = [&](const std::string& why) {
      return Error(ErrorCategory::invalid_argument, what + " '" + text + "': " + why + " (expected e.g. 0,3-7)");
    };
    auto number = [&]() -> long {
      std::size_t j = i;
      while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      if (j == i || j - i > 9) throw bad("a number is missing or too long at offset " + std::to_string(i));
      const long v = std::stol(text.substr(i, j - i));
      i = j;
      return v;
    };
    while (i < text.size()) {
      const long lo = number();
      long hi = lo;
      if (i < text.size() && text[i] == '-') {
        ++i;
        hi = number();
        if (hi < lo) throw bad("range " + std::to_string(lo) + "-" + std::to_string(hi) + " is empty");
      }
      s.ranges.emplace_back(lo, hi);
      if (i < text.size() && text[i++] != ',') throw bad("unexpected character at offset " + std::to_string(i - 1));
    }
    if (s.ranges.empty()) throw bad("empty");
    return s;
  }
};

/// Everything run_compare needs.
struct CompareRequest {
  std::filesystem::path npu;    ///< the dump under test (msprobe's -i npu / target)
  std::filesystem::path bench;  ///< the reference dump (golden / bench)
  Compat compat = Compat::tensordiff;        ///< msprobe: reproduce its quirks byte for byte
  ResultRules rules = ResultRules::current;  ///< pass/warning/error, or the legacy Accuracy column
  RuleOptions rule_options;                 ///< thresholds; compat is taken from `compat`
  std::shared_ptr<const Matcher> matcher;   ///< null: ExactMatcher
  TensorLoader loader;                      ///< null: load_single_tensor
  bool follow_symlinks = false;             ///< allow data files that resolve outside their dump folder
  CompareOptions compare_options;           ///< per-pair compare() options (squeeze on, msprobe eps)
  unsigned workers = 0;                     ///< pairs compared at once; 0 = min(4, hardware threads)
  // Plain folders (no dump.json): pair files by normalised name or by order.
  std::string strip_pattern = R"(\.\d{10,}(?=\.|$))";  ///< removed from file stems (timestamps)
  bool plain_by_order = false;              ///< pair the i-th file with the i-th (sorted by name)
  DivergenceOptions divergence;  ///< what counts as the first divergence
  std::function<void(std::size_t done, std::size_t total)> progress;  ///< tensor mode, called from workers
  // Selection: narrow a big dump without copying it.
  NumberSet steps;     ///< step{N} folders to compare (empty: all)
  NumberSet ranks;     ///< rank{N} folders to compare (empty: all)
  std::string filter;  ///< ECMAScript regex: keep rows whose API/module (entry) name contains a match
  std::shared_ptr<RowExecutor> executor;  ///< null: every tensor pair here (see RowExecutor)
};

/// The result: one RankComparison per rank (per step), analyses on top.
struct DumpComparison {
  Mode mode = Mode::tensor;                  ///< detected from the dumps
  Compat compat = Compat::tensordiff;        ///< as requested
  ResultRules rules = ResultRules::current;  ///< as requested
  std::vector<RankComparison> ranks;         ///< step by step, rank by rank
  std::vector<std::vector<ModuleRollup>> rollups;         ///< per rank
  std::vector<std::optional<FirstDivergence>> divergences;  ///< per rank
  std::optional<FirstDivergence> first_divergence;        ///< first step, then first rank
  bool multi_rank = false;  ///< ranks came from rank{N}/ subfolders: name files compare_result_rank{N}_...

  /// The CSV layout of one rank's table (columns depend on mode, rules and stack.json).
  TableLayout layout_for(const RankComparison& rc) const { return TableLayout{mode, rules, rc.has_stack}; }
  /// Rows of every rank.
  std::size_t row_count() const {
    std::size_t n = 0;
    for (const auto& r : ranks) n += r.rows.size();
    return n;
  }
};

namespace detail {

inline bool has_dump_json(const std::filesystem::path& d) {
  std::error_code ec;
  return std::filesystem::is_regular_file(d / "dump.json", ec) || std::filesystem::is_regular_file(d / "debug.json", ec);
}

/// Numbered subfolders "prefix{N}" sorted by N.
inline std::vector<std::pair<long, std::filesystem::path>> numbered_subdirs(const std::filesystem::path& d, const std::string& prefix) {
  std::vector<std::pair<long, std::filesystem::path>> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(d, ec)) {
    if (!e.is_directory(ec)) continue;
    const std::string n = e.path().filename().string();
    if (n.rfind(prefix, 0) != 0) continue;
    const std::string num = n.substr(prefix.size());
    if (num.empty()) {
      out.emplace_back(-1, e.path());  // "rank" without an id (not distributed)
      continue;
    }
    if (num.find_first_not_of("0123456789") != std::string::npos || num.size() > 9) continue;
    out.emplace_back(std::stol(num), e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

struct FolderPair {
  std::string step;
  int rank = -1;
  std::filesystem::path npu, bench;
  bool plain = false;
  bool from_subfolder = false;  ///< found as rank{N}/proc* under the given folder
};

inline std::vector<FolderPair> rank_pairs(const std::filesystem::path& n, const std::filesystem::path& b, const std::string& step) {
  std::vector<FolderPair> out;
  if (has_dump_json(n) || std::filesystem::is_regular_file(n)) {
    int rank = -1;
    const std::string fn = std::filesystem::path(std::filesystem::is_regular_file(n) ? n.parent_path() : n).filename().string();
    if (fn.rfind("rank", 0) == 0 && fn.size() > 4 && fn.find_first_not_of("0123456789", 4) == std::string::npos && fn.size() < 14)
      rank = std::stoi(fn.substr(4));
    out.push_back({step, rank, n, b, false});
    return out;
  }
  for (const char* prefix : {"rank", "proc"}) {
    auto nr = numbered_subdirs(n, prefix);
    if (nr.empty()) continue;
    auto br = numbered_subdirs(b, prefix);
    if (nr.size() != br.size())
      throw Error(ErrorCategory::mismatch,
                  "the NPU dump has " + std::to_string(nr.size()) + " " + prefix + " folders, the bench dump " + std::to_string(br.size()),
                  {b.string(), "", std::nullopt});
    for (std::size_t i = 0; i < nr.size(); ++i) {
      int rank = static_cast<int>(i);  // proc* folders: by order
      if (std::string(prefix) == "rank") rank = static_cast<int>(nr[i].first);  // -1 for a bare "rank" folder
      out.push_back({step, rank, nr[i].second, br[i].second, false, true});
    }
    return out;
  }
  out.push_back({step, -1, n, b, true});  // plain folders of tensor files
  return out;
}

/// The name of the rank folder holding the NPU dump: "rank3", "rank" or "proc1234"; "" otherwise.
inline std::string rank_folder_name(const std::filesystem::path& npu) {
  std::error_code ec;
  const std::filesystem::path dir = std::filesystem::is_regular_file(npu, ec) ? npu.parent_path() : npu;
  const std::string n = dir.filename().string();
  static const std::regex rank_like(R"((rank\d*|proc\d+))");
  return std::regex_match(n, rank_like) ? n : std::string();
}

inline std::vector<FolderPair> discover(const std::filesystem::path& n, const std::filesystem::path& b) {
  std::error_code ec;
  if (!std::filesystem::exists(n, ec)) throw Error(ErrorCategory::io, "no such file or folder", {n.string(), "", std::nullopt});
  if (!std::filesystem::exists(b, ec)) throw Error(ErrorCategory::io, "no such file or folder", {b.string(), "", std::nullopt});
  if (std::filesystem::is_directory(n, ec) && !has_dump_json(n)) {
    auto ns = numbered_subdirs(n, "step");
    if (!ns.empty()) {
      auto bs = numbered_subdirs(b, "step");
      std::vector<FolderPair> out;
      for (const auto& [num, p] : ns) {
        auto it = std::find_if(bs.begin(), bs.end(), [&](const auto& x) { return x.first == num; });
        if (it == bs.end())
          throw Error(ErrorCategory::mismatch, "the bench dump has no folder " + p.filename().string(), {b.string(), "", std::nullopt});
        auto r = rank_pairs(p, it->second, p.filename().string());
        out.insert(out.end(), r.begin(), r.end());
      }
      return out;
    }
  }
  return rank_pairs(n, b, "");
}

inline bool is_tensor_file(const std::filesystem::path& p) {
  std::string e = p.extension().string();
  for (char& c : e) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return e == ".npy" || e == ".pt" || e == ".pth" || e == ".bin" || e == ".safetensors";
}

/// A folder of data files as a pseudo dump: one entry and one item per file.
inline std::pair<std::shared_ptr<io::DumpFile>, std::vector<Item>> plain_folder(const std::filesystem::path& dir, const std::regex& strip) {
  auto d = std::make_shared<io::DumpFile>();
  d->dir = dir;
  d->path = dir;
  d->task = "tensor";
  d->framework = "files";
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.is_regular_file(ec) && is_tensor_file(e.path())) files.push_back(e.path());
  if (ec) throw Error(ErrorCategory::io, "cannot list folder: " + ec.message(), {dir.string(), "", std::nullopt});
  std::sort(files.begin(), files.end());
  std::vector<Item> items;
  for (const auto& f : files) {
    io::DumpEntry e;
    const std::string stem = f.stem().string();
    e.name = std::regex_replace(stem, strip, "");
    d->entries.push_back(e);
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    Item it;
    it.entry = d->entries[i].name;
    it.entry_index = i;
    it.name = d->entries[i].name;
    it.state = ItemState::output;
    it.data_name = files[i].filename().string();
    it.dtype = it.shape = it.requires_grad = it.md5 = "None";
    items.push_back(std::move(it));
  }
  return {d, std::move(items)};
}

/// The dump folder a side's data files must stay inside.
inline const std::filesystem::path& dump_dir_of(const RankComparison& rc, bool npu) {
  return (npu ? *rc.npu_dump : *rc.bench_dump).dir;
}

inline std::string file_of(const RankComparison& rc, const Item& it, bool npu) {
  const io::DumpFile& d = npu ? *rc.npu_dump : *rc.bench_dump;
  if (rc.plain_folders) return (d.dir / it.data_name).string();
  return d.data_path(it.data_name).string();
}

/// One tensor-mode row: msprobe's locate/read checks, then compare().
/// Every Row / Item field set here must also travel in distributed/row_result.hpp.
inline void compute_tensor_row(RankComparison& rc, Row& r, const CompareRequest& req, const TensorLoader& load, unsigned threads) {
  Item& n = rc.npu_items[r.npu];
  Item* b = r.bench >= 0 ? &rc.bench_items[static_cast<std::size_t>(r.bench)] : nullptr;
  auto unsupported = [&](const char* msg) {
    for (auto& m : r.metrics) m = Metric::none(MetricStatus::unsupported);
    r.compare_messages.push_back(msg);
  };
  if (n.data_name == "-1") return unsupported("NPU does not have data file.");
  if (b && b->data_name == "-1") return unsupported("Bench does not have data file.");
  if (!b) return unsupported("Bench api/module unmatched.");
  Tensor tn, tb;
  std::string path;
  // A row never passes on a file that could not be read: the reader's own
  // reason is kept (data_file_error makes the row an error outside msprobe compat).
  auto read_failed = [&](const std::string& reason) {
    r.data_file_error = escape_for_message(reason);
    for (auto& m : r.metrics) m = Metric::none(MetricStatus::unsupported);
    r.compare_messages.push_back("Dump file: " + path + " not found or read failed.");
  };
  try {
    path = file_of(rc, n, true);
    io::check_inside_folder(dump_dir_of(rc, true), path, req.follow_symlinks);
    tn = load(path);
    path = file_of(rc, *b, false);
    io::check_inside_folder(dump_dir_of(rc, false), path, req.follow_symlinks);
    tb = load(path);
  } catch (const Error& e) {
    return read_failed(e.what());
  } catch (const std::bad_alloc&) {
    return read_failed(path + ": out of memory reading the file");
  } catch (const std::exception& e) {
    return read_failed(path + ": " + e.what());
  }
  CompareOptions o = req.compare_options;
  o.threads = threads;
  Comparison c;
  try {
    c = compare(tn.view(), tb.view(), o);
  } catch (const Error& e) {
    for (auto& m : r.metrics) m = Metric::none(MetricStatus::unsupported);
    r.compare_messages.push_back(std::string("Cannot compare: ") + e.reason());
    return;
  } catch (const std::bad_alloc&) {  // never a bare bad_alloc, never an exception out of a worker thread
    for (auto& m : r.metrics) m = Metric::none(MetricStatus::unsupported);
    r.data_file_error = path + ": out of memory comparing this pair";  // the row must not pass
    r.compare_messages.push_back("Cannot compare: out of memory");
    return;
  }
  r.compared = true;
  r.validation = c.validation;
  r.metrics[cosine] = c.cosine;
  r.metrics[euc_dist] = c.euclidean_distance;
  r.metrics[max_abs_err] = c.max_abs_err;
  r.metrics[max_rel_err] = c.max_rel_err;
  r.metrics[one_thousandth] = c.one_thousandth_ratio;
  r.metrics[five_thousandths] = c.five_thousandths_ratio;
  r.max_abs_index = c.max_abs_index;
  r.max_rel_index = c.max_rel_index;
  r.mean_abs_err = c.mean_abs_err.value;
  r.mean_rel_err = c.mean_rel_err.value;
  r.rmse = c.rmse.value;
  // msprobe loads bf16 as float32, so bf16 vs float32 is no dtype mismatch there.
  const auto f32ish = [](DType t) { return t == DType::bfloat16 || t == DType::float32; };
  for (const auto& m : c.messages) {
    if (m == "Dtype of NPU and bench tensor do not match." && f32ish(tn.view().dtype) && f32ish(tb.view().dtype)) continue;
    r.compare_messages.push_back(m);
  }
  if (rc.plain_folders) {  // no dump.json: the table's dtype/shape/stats come from the files
    auto fill = [](Item& it, const Summary& s, const TensorView& v) {
      it.dtype = dtype_name(v.dtype);
      it.shape = shape_to_string(v.shape);
      it.max = io::JsonScalar::of_real(s.max);
      it.min = io::JsonScalar::of_real(s.min);
      it.mean = io::JsonScalar::of_real(s.mean);
      it.norm = io::JsonScalar::of_real(s.l2norm);
    };
    const Summary sa = c.validation == Validation::empty ? summarize(tn.view()) : c.actual;
    const Summary sb = c.validation == Validation::empty ? summarize(tb.view()) : c.expected;
    fill(n, sa, tn.view());
    fill(*b, sb, tb.view());
  }
}

/// How each statistic is read (StatParse): under Compat::msprobe as pandas reads the table's
/// columns — an NPU or bench column of integer literals only stays int64.
inline std::array<StatParse, 4> statistics_parsing(const RankComparison& rc) {
  std::array<StatParse, 4> how{};
  if (rc.compat != Compat::msprobe) return how;
  auto stat = [](const Item& it, int k) { return csv_text(stat_cell(k == 0 ? it.max : k == 1 ? it.min : k == 2 ? it.mean : it.norm)); };
  for (int k = 0; k < 4; ++k) {
    bool npu_int = !rc.rows.empty(), bench_int = !rc.rows.empty();
    for (const Row& r : rc.rows) {
      npu_int = npu_int && pandas_integer_literal(stat(rc.npu_items[r.npu], k));
      const Item* b = rc.bench_item(r);
      bench_int = bench_int && b && pandas_integer_literal(stat(*b, k));
    }
    how[static_cast<std::size_t>(k)] = StatParse{true, npu_int && bench_int};
  }
  return how;
}

inline void compute_statistics_row(RankComparison& rc, Row& r, const std::array<StatParse, 4>& how) {
  const Item& n = rc.npu_items[r.npu];
  const Item* b = rc.bench_item(r);
  if (!b) return;
  const io::JsonScalar* ns[] = {&n.max, &n.min, &n.mean, &n.norm};
  const io::JsonScalar* bs[] = {&b->max, &b->min, &b->mean, &b->norm};
  for (int k = 0; k < 4; ++k) {
    auto [d, rel] = stat_difference(stat_cell(*ns[k]), stat_cell(*bs[k]), how[static_cast<std::size_t>(k)]);
    r.stat_diff[k] = d;
    r.stat_rel[k] = rel;
  }
}

inline void compute_tensor_rows(RankComparison& rc, const CompareRequest& req, const std::vector<std::size_t>* only = nullptr) {
  const TensorLoader load = req.loader ? req.loader : TensorLoader(load_single_tensor);
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t n = only ? only->size() : rc.rows.size();
  unsigned workers = req.workers ? req.workers : std::min(4u, hw);
  workers = static_cast<unsigned>(std::max<std::size_t>(1, std::min<std::size_t>(workers, n)));
  // With one pair at a time, let compare() use the cores itself.
  const unsigned inner = workers == 1 ? (req.compare_options.threads > 1 ? req.compare_options.threads : hw) : 1;
  std::atomic<std::size_t> next{0}, done{0};
  auto work = [&] {
    for (std::size_t i = next++; i < n; i = next++) {
      compute_tensor_row(rc, rc.rows[only ? (*only)[i] : i], req, load, inner);
      const std::size_t d = ++done;
      if (req.progress) req.progress(d, n);
    }
  };
  if (workers <= 1) {
    work();
    return;
  }
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < workers; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();
}

/// msprobe's fillna('N/A'): a missing requires_grad and a null leaf's md5 read N/A, not None.
inline void msprobe_missing_values(std::vector<Item>& items) {
  for (Item& it : items) {
    if (it.requires_grad == "None") it.requires_grad = "N/A";
    if (it.leaf && it.leaf->kind == io::DumpLeaf::Kind::none) it.md5 = "N/A";
  }
}

/// Keeps the rows (and bench-only items) whose entry name matches `pattern`.
inline void apply_filter(RankComparison& rc, const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern);
  } catch (const std::regex_error& e) {
    throw Error(ErrorCategory::invalid_argument, "--filter '" + pattern + "' is not a valid regular expression: " + e.what());
  }
  auto keep = [&](const Item& it) { return std::regex_search(it.entry, re); };
  rc.rows.erase(std::remove_if(rc.rows.begin(), rc.rows.end(), [&](const Row& r) { return !keep(rc.npu_items[r.npu]); }), rc.rows.end());
  rc.bench_only.erase(std::remove_if(rc.bench_only.begin(), rc.bench_only.end(), [&](std::size_t j) { return !keep(rc.bench_items[j]); }),
                      rc.bench_only.end());
}

inline void check_modes(Mode mn, Mode mb, const std::filesystem::path& n, const std::filesystem::path& b) {
  if (mn == mb) return;
  throw Error(ErrorCategory::mismatch,
              std::string("the NPU dump is a ") + to_string(mn) + "-mode dump but the bench dump (" + b.string() + ") is a " +
                  to_string(mb) + "-mode dump; both must come from the same dump task",
              {n.string(), "/task", std::nullopt});
}

}  // namespace detail

/// Computes the compare columns of `rows` of `rc` (all rows when null) in
/// this process, `req.workers` pairs at a time: what a RowExecutor calls for
/// the rows it owns.
inline void compute_tensor_rows(RankComparison& rc, const CompareRequest& req, const std::vector<std::size_t>* rows = nullptr) {
  detail::compute_tensor_rows(rc, req, rows);
}

/// Compares one pair of rank folders (or dump.json files, or plain folders);
/// `unit` is its index in execution order, passed to req.executor.
inline RankComparison compare_rank(const std::filesystem::path& npu, const std::filesystem::path& bench, const CompareRequest& req,
                                   bool plain = false, std::size_t unit = 0) {
  RankComparison rc;
  rc.label = std::filesystem::path(npu).filename().string();
  if (plain) {
    const std::regex strip(req.strip_pattern);
    auto [nd, ni] = detail::plain_folder(npu, strip);
    auto [bd, bi] = detail::plain_folder(bench, strip);
    if (ni.empty()) throw Error(ErrorCategory::io, "no dump.json and no .npy/.pt files in this folder", {npu.string(), "", std::nullopt});
    rc.plain_folders = true;
    rc.mode = Mode::tensor;
    rc.npu_dump = nd;
    rc.bench_dump = bd;
    rc.npu_items = std::move(ni);
    rc.bench_items = std::move(bi);
  } else {
    rc.npu_dump = std::make_shared<io::DumpFile>(io::load_dump_folder(npu));
    rc.bench_dump = std::make_shared<io::DumpFile>(io::load_dump_folder(bench));
    const Mode mn = detect_mode(*rc.npu_dump), mb = detect_mode(*rc.bench_dump);
    detail::check_modes(mn, mb, rc.npu_dump->path, rc.bench_dump->path);
    rc.mode = mn;
    rc.npu_items = flatten(*rc.npu_dump);
    rc.bench_items = flatten(*rc.bench_dump);
    rc.has_stack = rc.npu_dump->stack.has_value();
  }
  rc.compat = req.compat;
  rc.msprobe_fuzzy_md5 = req.compat == Compat::msprobe && rc.mode == Mode::md5 &&
                         dynamic_cast<const FuzzyMatcher*>(req.matcher.get()) != nullptr;
  if (req.compat == Compat::msprobe) {  // msprobe fills missing values with N/A (fillna)
    detail::msprobe_missing_values(rc.npu_items);
    detail::msprobe_missing_values(rc.bench_items);
  }
  // pair
  MatchResult m(rc.npu_items.size());
  const MatchInput in{*rc.npu_dump, rc.npu_items, *rc.bench_dump, rc.bench_items, req.compat};
  if (rc.plain_folders && req.plain_by_order) {
    for (std::size_t i = 0; i < rc.npu_items.size() && i < rc.bench_items.size(); ++i) {
      m.bench_of[i] = static_cast<std::ptrdiff_t>(i);
      m.reason[i] = "order: " + rc.npu_items[i].data_name + " <-> " + rc.bench_items[i].data_name;
    }
  } else if (rc.plain_folders) {
    m = detail::key_merge(
        in, [&](std::size_t i) { return std::optional<std::string>(rc.npu_items[i].name); },
        [&](std::size_t j) { return rc.bench_items[j].name; },
        [&](std::size_t i, std::size_t j) { return "file name: " + rc.npu_items[i].data_name + " <-> " + rc.bench_items[j].data_name; },
        false);
  } else {
    const ExactMatcher exact;
    m = (req.matcher ? *req.matcher : static_cast<const Matcher&>(exact)).match(in);
  }
  std::vector<bool> used(rc.bench_items.size(), false);
  rc.rows.reserve(rc.npu_items.size());
  for (std::size_t i = 0; i < rc.npu_items.size(); ++i) {
    if (!m.omitted.empty() && m.omitted[i]) continue;  // msprobe's fuzzy walk never reached it
    Row& r = rc.rows.emplace_back();
    r.npu = i;
    r.bench = m.bench_of[i];
    r.match_reason = m.reason[i].empty() && r.bench < 0 ? "unmatched: no bench item with this name" : m.reason[i];
    r.gated_bench = m.gated[i];
    if (r.bench >= 0) used[static_cast<std::size_t>(r.bench)] = true;
    if (r.gated_bench >= 0) used[static_cast<std::size_t>(r.gated_bench)] = true;
  }
  if (req.compat != Compat::msprobe)
    for (std::size_t j = 0; j < used.size(); ++j)
      if (!used[j]) rc.bench_only.push_back(j);
  if (!req.filter.empty()) detail::apply_filter(rc, req.filter);
  // compute
  if (rc.mode == Mode::tensor) {
    if (req.executor) req.executor->compute(rc, req, unit);
    else detail::compute_tensor_rows(rc, req);
  } else if (rc.mode == Mode::statistics) {
    const auto how = detail::statistics_parsing(rc);
    for (auto& r : rc.rows) detail::compute_statistics_row(rc, r, how);
  }
  // judge
  if (req.rules == ResultRules::legacy) {
    apply_legacy_rules(rc);
  } else {
    RuleOptions o = req.rule_options;
    o.compat = req.compat;
    apply_current_rules(rc, o);
  }
  return rc;
}

/// The (step, rank) folder pairs run_compare compares, in execution order,
/// after req.steps / req.ranks. Throws Error on bad input.
inline std::vector<detail::FolderPair> folder_pairs(const CompareRequest& req) {
  auto pairs = detail::discover(req.npu, req.bench);
  if (req.steps.ranges.empty() && req.ranks.ranges.empty()) return pairs;
  std::vector<detail::FolderPair> kept;
  for (auto& p : pairs) {
    const long step = p.step.size() > 4 ? std::stol(p.step.substr(4)) : -1;
    if (!req.steps.ranges.empty() && (p.step.empty() || !req.steps.contains(step))) continue;
    if (!req.ranks.ranges.empty() && (p.rank < 0 || !req.ranks.contains(p.rank))) continue;
    kept.push_back(std::move(p));
  }
  if (kept.empty())
    throw Error(ErrorCategory::invalid_argument, "--steps/--ranks select none of the dump's " + std::to_string(pairs.size()) + " (step, rank) folders",
                {req.npu.string(), "", std::nullopt});
  return kept;
}

/// Compares two dumps: rank by rank, step by step. Throws Error on bad input.
inline DumpComparison run_compare(const CompareRequest& req) {
  DumpComparison out;
  out.compat = req.compat;
  out.rules = req.rules;
  const auto pairs = folder_pairs(req);
  std::optional<Mode> mode;
  for (std::size_t unit = 0; unit < pairs.size(); ++unit) {
    const auto& p = pairs[unit];
    RankComparison rc = compare_rank(p.npu, p.bench, req, p.plain, unit);
    rc.step = p.step;
    rc.rank = p.rank;
    rc.npu_folder = detail::rank_folder_name(p.npu);
    rc.label = (p.step.empty() ? "" : p.step + "/") + (p.rank >= 0 ? "rank" + std::to_string(p.rank) : rc.label);
    if (mode && *mode != rc.mode) detail::check_modes(*mode, rc.mode, p.npu, p.bench);
    mode = rc.mode;
    out.rollups.push_back(module_rollup(rc));
    auto fd = find_first_divergence(rc, req.divergence);
    if (fd && !out.first_divergence) out.first_divergence = fd;
    out.divergences.push_back(std::move(fd));
    out.ranks.push_back(std::move(rc));
  }
  out.mode = mode.value_or(Mode::tensor);
  out.multi_rank = pairs.size() > 1 || (!pairs.empty() && pairs.front().from_subfolder);
  return out;
}

}  // namespace match
TD_NAMESPACE_END
