// tensordiff — a compare split into shards that run anywhere (Slurm job
// arrays, Kubernetes Jobs, a loop on a laptop) and are merged afterwards.
//
//   tensordiff compare NPU BENCH -o part1 --shard 1/3     (… 2/3, 3/3, in any order, anywhere)
//   tensordiff merge OUT part1 part2 part3                 (the same outputs as one compare)
//
// A shard is the share of process I-1 of N under the Plan (plan.hpp), written
// as JSON lines to DIR/tensordiff-shard.jsonl (under a temporary name, renamed
// when complete):
//   {"format":"tensordiff-shard","format_version":1,"tensordiff":"0.1.0","shard":1,"shards":3,
//    "inputs":{...},"options":{...}}                         header: what the shard compared, and how
//   {"unit":0,"rows":[row_result, ...]}                      batches of rows, in (run, row) order
//   {"end":true,"rows":123,"runs":["step0/rank0", ...]}      the partial summary; its absence = truncated
// ShardSet checks that the parts of a merge belong together and are complete.
#pragma once
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "../version.hpp"
#include "../io/detail/output_file.hpp"
#include "run.hpp"

TD_NAMESPACE_BEGIN
namespace distributed {

inline constexpr const char* shard_format = "tensordiff-shard";       ///< the header's "format"
inline constexpr int shard_format_version = 1;                        ///< the header's "format_version"
inline constexpr const char* shard_file_name = "tensordiff-shard.jsonl";  ///< inside a shard's folder

/// "I/N" → {I, N} with 1 <= I <= N; throws Error otherwise.
inline std::pair<int, int> parse_shard(const std::string& s) {
  const auto slash = s.find('/');
  auto bad = [&] { return Error(ErrorCategory::invalid_argument, "--shard '" + s + "': expected I/N with 1 <= I <= N (e.g. 2/8)"); };
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size() || slash > 6 || s.size() - slash > 7) throw bad();
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != slash && !std::isdigit(static_cast<unsigned char>(s[i]))) throw bad();
  const int i = std::stoi(s.substr(0, slash)), n = std::stoi(s.substr(slash + 1));
  if (i < 1 || n < 1 || i > n) throw bad();
  return {i, n};
}

/// What every shard of one job must agree on: the dumps as given, the folder
/// they were given from, and each run with its size (a changed dump shows).
inline nlohmann::json shard_inputs(const match::CompareRequest& req, const std::vector<match::detail::FolderPair>& pairs, const Plan& plan) {
  nlohmann::json runs = nlohmann::json::array();
  for (std::size_t u = 0; u < pairs.size(); ++u) runs.push_back({unit_label(pairs[u]), plan.unit_bytes()[u]});
  std::error_code ec;
  return {{"npu", req.npu.string()}, {"bench", req.bench.string()}, {"cwd", std::filesystem::current_path(ec).string()}, {"runs", runs}};
}

/// The partial summary of one shard.
struct ShardSummary {
  std::size_t rows = 0;             ///< rows computed
  std::vector<std::string> runs;    ///< runs read (labels)
  std::string file;                 ///< the file written
};

/// Computes shard `index` (1-based) of `count` of `req` and writes it to
/// `dir`/tensordiff-shard.jsonl. `options` (how to redo the comparison:
/// the CLI's flags) is stored in the header and must be equal across shards.
inline ShardSummary write_shard(const match::CompareRequest& req, int index, int count, const nlohmann::json& options,
                                const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  const auto pairs = match::folder_pairs(req);
  const Plan plan = Plan::of(pairs, count);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw Error(ErrorCategory::io, "cannot create output folder: " + ec.message(), {dir.string(), "", std::nullopt});
  ShardSummary sum;
  sum.file = (dir / shard_file_name).string();
  const nlohmann::json header = {{"format", shard_format}, {"format_version", shard_format_version}, {"tensordiff", version_string},
                                 {"shard", index},         {"shards", count},                       {"inputs", shard_inputs(req, pairs, plan)},
                                 {"options", options}};
  io::detail::write_output_file_atomically(
      sum.file,
      [&](std::ostream& os) {
        os << header.dump() << "\n";
        match::CompareRequest r = req;
        sum.runs = run_share(r, plan, index - 1, [&](const nlohmann::json& m) { os << m.dump() << "\n"; }, &sum.rows);
        os << nlohmann::json({{"end", true}, {"rows", sum.rows}, {"runs", sum.runs}}).dump() << "\n";
      },
      ".partial");
  return sum;
}

/// The shards of one job, checked to belong together, opened for reading.
class ShardSet {
 public:
  /// Opens DIR/tensordiff-shard.jsonl of each folder. Throws Error (mismatch)
  /// naming the file when a part is of another format or tensordiff version,
  /// compared other inputs or options, is truncated, repeats a shard, or when
  /// a shard of the job is missing.
  explicit ShardSet(const std::vector<std::filesystem::path>& dirs) {
    if (dirs.empty()) throw Error(ErrorCategory::invalid_argument, "merge: no shard folders given");
    std::vector<Part> parts;
    for (const auto& d : dirs) parts.push_back(open_part(d));
    const Part& first = parts.front();
    count_ = first.header["shards"].get<int>();
    for (const auto& p : parts) {
      auto differ = [&](const char* what) {
        return Error(ErrorCategory::mismatch, std::string("merge: ") + p.file + " and " + first.file + " are shards of different jobs (" + what +
                                                  " differ): " + p.header[what].dump() + " vs " + first.header[what].dump());
      };
      if (p.header["shards"] != first.header["shards"]) throw differ("shards");
      if (p.header["inputs"] != first.header["inputs"]) throw differ("inputs");
      if (p.header["options"] != first.header["options"]) throw differ("options");
    }
    readers_.resize(static_cast<std::size_t>(count_));
    for (auto& p : parts) {
      const int i = p.header["shard"].get<int>();
      if (i < 1 || i > count_) throw Error(ErrorCategory::format, "merge: shard " + std::to_string(i) + " of " + std::to_string(count_), {p.file, "/shard", std::nullopt});
      auto& slot = readers_[static_cast<std::size_t>(i - 1)];
      if (slot.open) throw Error(ErrorCategory::mismatch, "merge: shard " + std::to_string(i) + "/" + std::to_string(count_) + " is given twice: " + slot.file + " and " + p.file);
      slot = std::move(p);
    }
    for (int i = 0; i < count_; ++i)
      if (!readers_[static_cast<std::size_t>(i)].open)
        throw Error(ErrorCategory::mismatch, "merge: shard " + std::to_string(i + 1) + "/" + std::to_string(count_) +
                                                 " is missing (have " + std::to_string(parts.size()) + " of " + std::to_string(count_) + ")");
    inputs_ = readers_.front().header["inputs"];
    options_ = readers_.front().header["options"];
  }

  int count() const noexcept { return count_; }                       ///< shards in the job
  const nlohmann::json& inputs() const noexcept { return inputs_; }    ///< shard_inputs() of the job
  const nlohmann::json& options() const noexcept { return options_; }  ///< the options stored by write_shard()

  /// Row `row` of run `unit` from shard `owner` + 1; rows must be asked for
  /// in order (GatherExecutor does). Throws Error naming the file and line.
  nlohmann::json take(std::size_t unit, std::size_t row, int owner) {
    Part& p = readers_.at(static_cast<std::size_t>(owner));
    for (;;) {
      if (p.next < p.rows.size()) {
        nlohmann::json& r = p.rows[p.next];
        if (p.unit == unit && r.at("row").get<std::size_t>() == row) return std::move(p.rows[p.next++]);
        if (p.unit > unit || (p.unit == unit && r.at("row").get<std::size_t>() > row)) break;
        ++p.next;  // a row the merge does not need: the shard is of another split
        continue;
      }
      std::string line;
      if (!std::getline(p.in, line)) break;
      ++p.line;
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const nlohmann::json::exception& e) {
        throw Error(ErrorCategory::format, std::string("merge: not JSON: ") + e.what(), {p.file, "line " + std::to_string(p.line), std::nullopt});
      }
      if (j.contains("end")) break;
      if (!j.contains("unit") || !j.contains("rows") || !j["rows"].is_array())
        throw Error(ErrorCategory::format, "merge: not a batch of rows", {p.file, "line " + std::to_string(p.line), std::nullopt});
      p.unit = j["unit"].get<std::size_t>();
      p.rows = std::move(j["rows"]);
      p.next = 0;
    }
    throw Error(ErrorCategory::mismatch, "merge: the shard has no row " + std::to_string(row) + " of run " + std::to_string(unit) +
                                             " where the split puts it (was it written for another dump?)",
                {p.file, "line " + std::to_string(p.line), std::nullopt});
  }

 private:
  struct Part {
    std::string file;
    nlohmann::json header;
    std::ifstream in;
    std::size_t line = 1, unit = 0, next = 0;
    nlohmann::json rows = nlohmann::json::array();
    bool open = false;
  };

  static Part open_part(const std::filesystem::path& dir) {
    Part p;
    p.file = (dir / shard_file_name).string();
    p.in.open(p.file, std::ios::binary);
    if (!p.in) {
      const std::string partial = std::filesystem::exists(p.file + ".partial") ? " (only an unfinished .partial file: did the shard run end?)" : "";
      throw Error(ErrorCategory::io, "merge: no shard file here" + partial, {p.file, "", std::nullopt});
    }
    std::string line;
    std::getline(p.in, line);
    try {
      p.header = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception&) {
      throw Error(ErrorCategory::format, "merge: the first line is not a shard header", {p.file, "line 1", std::nullopt});
    }
    if (!p.header.is_object() || p.header.value("format", "") != shard_format)
      throw Error(ErrorCategory::format, "merge: not a tensordiff shard (no \"format\": \"tensordiff-shard\")", {p.file, "line 1", std::nullopt});
    if (p.header.value("format_version", -1) != shard_format_version || p.header.value("tensordiff", "") != version_string)
      throw Error(ErrorCategory::mismatch, "merge: written by tensordiff " + p.header.value("tensordiff", "?") + " (shard format " +
                                               std::to_string(p.header.value("format_version", -1)) + "), this is tensordiff " + version_string +
                                               " (format " + std::to_string(shard_format_version) + "): rerun the shards with one version",
                  {p.file, "line 1", std::nullopt});
    for (const char* k : {"shard", "shards", "inputs", "options"})
      if (!p.header.contains(k)) throw Error(ErrorCategory::format, std::string("merge: the header lacks \"") + k + "\"", {p.file, "line 1", std::nullopt});
    if (!p.header["shard"].is_number_integer() || !p.header["shards"].is_number_integer() || p.header["shards"].get<long long>() < 1 ||
        p.header["shards"].get<long long>() > 1000000)
      throw Error(ErrorCategory::format, "merge: \"shard\" and \"shards\" must be integers, 1 <= shards <= 1000000", {p.file, "line 1", std::nullopt});
    if (!ends_complete(p.file))
      throw Error(ErrorCategory::mismatch, "merge: the shard is truncated (no end record): rerun it", {p.file, "", std::nullopt});
    p.open = true;
    return p;
  }

  /// The last line is the {"end": true, ...} record.
  static bool ends_complete(const std::string& file) {
    std::ifstream in(file, std::ios::binary | std::ios::ate);
    const std::streamoff size = in.tellg();
    const std::streamoff back = std::min<std::streamoff>(size, 1 << 16);
    in.seekg(size - back);
    std::string tail(static_cast<std::size_t>(back), '\0');
    in.read(tail.data(), back);
    if (tail.empty() || tail.back() != '\n') return false;
    const auto start = tail.rfind('\n', tail.size() - 2);
    const std::string last = tail.substr(start == std::string::npos ? 0 : start + 1);
    try {
      const auto j = nlohmann::json::parse(last);
      return j.is_object() && j.value("end", false);
    } catch (const nlohmann::json::exception&) {
      return false;
    }
  }

  int count_ = 0;
  std::vector<Part> readers_;
  nlohmann::json inputs_, options_;
};

}  // namespace distributed
TD_NAMESPACE_END
