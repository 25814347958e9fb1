// `tensordiff compare` spread over processes (mpirun) and over shards joined by
// `tensordiff merge`: every output file, the text summary and the exit code
// must equal the one-process run's (the reference: the ordinary code path),
// apart from the timestamp in file names. Also: merge refusals, selection,
// a corrupt tensor file and a killed process. The MPI tests skip when the CLI
// was built without MPI or mpirun is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>

#include "shell_run.hpp"

namespace fs = std::filesystem;

namespace {
using td_test::CliRun;
using td_test::shell;

const std::string cli = TD_CLI;
const std::string mpiexec = TD_MPIEXEC;  // "" when the CLI has no MPI

bool have_mpi() { return !mpiexec.empty() && ::access(mpiexec.c_str(), X_OK) == 0; }

/// `tensordiff ARGS` under mpirun with `n` processes (never waiting more than a minute).
CliRun mpirun(int n, const std::string& args, const std::string& env = "") {
  const std::string root = ::geteuid() == 0 ? " --allow-run-as-root" : "";
  // Open MPI's own allocations outlive MPI_Finalize: no leak check there (sanitizer builds).
  return shell(env + " ASAN_OPTIONS=detect_leaks=0 timeout 60 " + mpiexec + " -n " + std::to_string(n) + " --oversubscribe" + root + " " + cli + " " + args);
}

CliRun td(const std::string& args) { return shell(cli + " " + args); }

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

/// The files of an output folder: name with the timestamp as TS → bytes.
std::map<std::string, std::string> outputs(const fs::path& dir) {
  std::map<std::string, std::string> m;
  const std::regex ts("[0-9]{14}");
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) m[std::regex_replace(e.path().filename().string(), ts, "TS")] = slurp(e.path());
  return m;
}

/// The text summary with the timestamp and the output folder taken out.
std::string text(const std::string& out, const fs::path& dir) {
  std::string s = std::regex_replace(out, std::regex("[0-9]{14}"), "TS");
  for (std::size_t at; (at = s.find(dir.string())) != std::string::npos;) s.replace(at, dir.string().size(), "OUT");
  return s;
}

void expect_same(const CliRun& want, const fs::path& want_dir, const CliRun& got, const fs::path& got_dir) {
  EXPECT_EQ(got.code, want.code) << got.err;
  EXPECT_EQ(text(got.out, got_dir), text(want.out, want_dir));
  const auto w = outputs(want_dir), g = outputs(got_dir);
  EXPECT_GE(w.size(), 2u);
  ASSERT_EQ(g.size(), w.size());
  for (const auto& [name, bytes] : w) {
    const auto it = g.find(name);
    ASSERT_NE(it, g.end()) << name << " is missing";
    EXPECT_TRUE(it->second == bytes) << name << " differs";
  }
}

/// Job dumps built from tests/data/dumps scenarios (links, and one copy):
///   tensor/     step0/rank{0,1}, step1/rank{0,1,2}; step1/rank2 has a truncated .pt on the NPU side
///   statistics/ step0/rank{0,1}, step1/rank{0,1}
///   md5/        step0/rank{0,1}, step1/rank0
class DistributedCompare : public ::testing::Test {
 protected:
  static fs::path root;
  static void SetUpTestSuite() {
    root = fs::temp_directory_path() / ("td_dist_" + std::to_string(::getpid()));
    fs::remove_all(root);
    const fs::path d = fs::path(TD_TEST_DATA_DIR) / "dumps";
    auto link = [&](const std::string& job, const std::string& at, const std::string& scenario, const std::string& rank = "rank0") {
      for (const char* side : {"npu", "bench"}) {
        const fs::path to = root / job / side / at;
        fs::create_directories(to.parent_path());
        fs::create_directory_symlink(d / scenario / side / "step0" / rank, to);
      }
    };
    link("tensor", "step0/rank0", "mix_fp32_tensor_perturbed");
    link("tensor", "step0/rank1", "L1_fp32_tensor_inf");
    link("tensor", "step1/rank0", "L0_bf16_tensor_perturbed");
    link("tensor", "step1/rank1", "L1_bf16_vs_fp32_tensor");
    for (const char* side : {"npu", "bench"})
      fs::copy(d / "L1_fp32_tensor_inf" / side / "step0/rank0", root / "tensor" / side / "step1/rank2", fs::copy_options::recursive);
    const fs::path bad = root / "tensor/npu/step1/rank2/dump_tensor_data/Functional.softmax.0.forward.output.0.pt";
    fs::resize_file(bad, fs::file_size(bad) / 2);
    link("statistics", "step0/rank0", "multirank_fp32_statistics", "rank0");
    link("statistics", "step0/rank1", "multirank_fp32_statistics", "rank1");
    link("statistics", "step1/rank0", "L0_fp32_statistics_perturbed");
    link("statistics", "step1/rank1", "mix_fp32_statistics_dtype_change");
    link("md5", "step0/rank0", "L1_fp32_md5_perturbed", "rank");
    link("md5", "step0/rank1", "L1_fp32_md5_perturbed", "rank");
    link("md5", "step1/rank0", "L1_fp32_md5_perturbed", "rank");
    std::ofstream(root / "map.yaml") << "Tensor.__add__.0.forward.input.0: Tensor.__add__.0.forward.input.1\n";
  }
  static void TearDownTestSuite() { fs::remove_all(root); }

  static std::string dumps(const std::string& job) { return (root / job / "npu").string() + " " + (root / job / "bench").string(); }
  static fs::path out(const std::string& name) {
    fs::remove_all(root / "out" / name);
    return root / "out" / name;
  }
};
fs::path DistributedCompare::root;

struct Case {
  std::string job, flags;
};
const Case cases[] = {
    {"tensor", "--html"},  {"statistics", "--html --jsonl"}, {"md5", ""}, {"tensor", "--fuzzy"},
    {"tensor", "--data-map MAP"}, {"statistics", "--legacy-result"},
};

std::string flags_of(const Case& c, const fs::path& root) {
  return std::regex_replace(c.flags, std::regex("MAP"), (root / "map.yaml").string());
}

TEST_F(DistributedCompare, MpirunWithOneTwoThreeProcessesWritesWhatOneProcessWrites) {
  if (!have_mpi()) GTEST_SKIP() << "no MPI (the CLI was built without tensordiff::mpi, or mpirun is missing)";
  for (const auto& c : cases) {
    SCOPED_TRACE(c.job + " " + c.flags);
    const std::string args = "compare -q " + dumps(c.job) + " " + flags_of(c, root);
    const fs::path one = out("one");
    const CliRun want = td(args + " -o " + one.string());
    ASSERT_LE(want.code, 1) << want.err;
    for (int n : {1, 2, 3}) {
      SCOPED_TRACE("mpirun -n " + std::to_string(n));
      const fs::path o = out("mpi" + std::to_string(n));
      expect_same(want, one, mpirun(n, args + " -o " + o.string()), o);
    }
  }
}

TEST_F(DistributedCompare, ShardsMergedEqualTheOneShotRun) {
  for (const auto& c : cases) {
    SCOPED_TRACE(c.job + " " + c.flags);
    const std::string args = "compare -q " + dumps(c.job) + " " + flags_of(c, root);
    const fs::path one = out("one");
    const CliRun want = td(args + " -o " + one.string());
    ASSERT_LE(want.code, 1) << want.err;
    std::string dirs;
    for (int i = 3; i >= 1; --i) {  // any order
      const fs::path s = out("shard" + std::to_string(i));
      const CliRun r = td(args + " -o " + s.string() + " --shard " + std::to_string(i) + "/3");
      ASSERT_EQ(r.code, 0) << r.err;
      EXPECT_TRUE(fs::exists(s / "tensordiff-shard.jsonl"));
      dirs = s.string() + " " + dirs;
    }
    const fs::path merged = out("merged");
    expect_same(want, one, td("merge -q " + merged.string() + " " + dirs), merged);
  }
}

TEST_F(DistributedCompare, ShardsSplitOneLargeRunByItsTensors) {
  // One run alone: the split must go inside it, every shard computing some rows.
  const fs::path d = fs::path(TD_TEST_DATA_DIR) / "dumps/mix_fp32_tensor_perturbed";
  const std::string args = "compare -q " + (d / "npu/step0/rank0").string() + " " + (d / "bench/step0/rank0").string();
  const fs::path one = out("one");
  const CliRun want = td(args + " -o " + one.string());
  int rows = 0;
  std::string dirs;
  for (int i = 1; i <= 3; ++i) {
    const fs::path s = out("shard" + std::to_string(i));
    const CliRun r = td(args + " -o " + s.string() + " --shard " + std::to_string(i) + "/3");
    ASSERT_EQ(r.code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex(": ([0-9]+) tensor rows of 1 run"))) << r.out;
    EXPECT_GT(std::stoi(m[1]), 0) << "shard " << i << " got no rows";
    rows += std::stoi(m[1]);
    dirs += " " + s.string();
  }
  std::smatch m;
  ASSERT_TRUE(std::regex_search(want.out, m, std::regex("rows: ([0-9]+)")));
  EXPECT_EQ(rows, std::stoi(m[1]));  // every row once
  const fs::path merged = out("merged");
  expect_same(want, one, td("merge -q " + merged.string() + dirs), merged);
}

/// Writes a float32 .npy of n elements (npy 1.0 header, values i * scale).
void write_npy(const fs::path& p, std::size_t n, float scale) {
  std::string h = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(n) + ",), }";
  h.append(64 - (10 + h.size() + 1) % 64, ' ');
  h += '\n';
  std::ofstream f(p, std::ios::binary);
  f.write("\x93NUMPY\x01\x00", 8);
  const unsigned short len = static_cast<unsigned short>(h.size());
  f.put(static_cast<char>(len & 0xff)).put(static_cast<char>(len >> 8)) << h;
  for (std::size_t i = 0; i < n; ++i) {
    const float v = static_cast<float>(i) * scale;
    f.write(reinterpret_cast<const char*>(&v), 4);
  }
}

TEST_F(DistributedCompare, ShardsShareTheBytesEvenly) {
  // One plain folder pair (one run) of 40 files from 4 KiB to 1 MiB: the split goes by bytes, so
  // each of 4 shards reads within one file pair of a quarter of all bytes, whatever the counts.
  const fs::path npu = root / "plain/npu", bench = root / "plain/bench";
  fs::create_directories(npu);
  fs::create_directories(bench);
  std::vector<std::uint64_t> row_bytes;  // rows are the files in name order
  unsigned seed = 7;
  for (int i = 0; i < 40; ++i) {
    seed = seed * 1103515245u + 12345u;
    const std::size_t n = std::size_t{1024} << ((seed >> 16) % 9);  // 4 KiB .. 1 MiB of float32
    char name[32];
    std::snprintf(name, sizeof name, "op_%02d.0.npy", i);
    write_npy(npu / name, n, 1.0f);
    write_npy(bench / name, n, 1.0001f);
    row_bytes.push_back(fs::file_size(npu / name) + fs::file_size(bench / name));
  }
  std::uint64_t total = 0, biggest = 0;
  for (auto b : row_bytes) total += b, biggest = std::max(biggest, b);
  const std::string args = "compare -q " + npu.string() + " " + bench.string();
  std::string dirs;
  std::vector<int> seen(row_bytes.size(), 0);
  for (int i = 1; i <= 4; ++i) {
    const fs::path s = out("shard" + std::to_string(i));
    ASSERT_EQ(td(args + " -o " + s.string() + " --shard " + std::to_string(i) + "/4").code, 0);
    dirs += " " + s.string();
    std::istringstream in(slurp(s / "tensordiff-shard.jsonl"));
    std::string line;
    std::uint64_t bytes = 0;
    while (std::getline(in, line)) {
      const auto j = nlohmann::json::parse(line);
      if (!j.contains("unit")) continue;  // the header and the end record
      for (const auto& r : j["rows"]) {
        const auto row = r["row"].get<std::size_t>();
        ++seen.at(row);
        bytes += row_bytes.at(row);
      }
    }
    const double quarter = static_cast<double>(total) / 4;
    EXPECT_LE(std::abs(static_cast<double>(bytes) - quarter), static_cast<double>(biggest)) << "shard " << i << ": " << bytes << " of " << total;
  }
  for (std::size_t r = 0; r < seen.size(); ++r) EXPECT_EQ(seen[r], 1) << "row " << r;
  const fs::path one = out("one"), merged = out("merged");
  const CliRun want = td(args + " -o " + one.string());
  expect_same(want, one, td("merge -q " + merged.string() + dirs), merged);
}

TEST_F(DistributedCompare, MergeRefusesPartsThatDoNotBelongTogether) {
  const std::string args = "compare -q " + dumps("tensor");
  std::vector<fs::path> s;
  for (int i = 1; i <= 3; ++i) {
    s.push_back(out("shard" + std::to_string(i)));
    ASSERT_EQ(td(args + " -o " + s.back().string() + " --shard " + std::to_string(i) + "/3").code, 0);
  }
  const fs::path other = out("other"), fuzzy = out("fuzzy"), old = out("old"), cut = out("cut");
  ASSERT_EQ(td("compare -q " + dumps("statistics") + " -o " + other.string() + " --shard 3/3").code, 0);
  ASSERT_EQ(td(args + " --fuzzy -o " + fuzzy.string() + " --shard 3/3").code, 0);
  fs::create_directories(old);
  fs::create_directories(cut);
  {
    std::string t = slurp(s[2] / "tensordiff-shard.jsonl");
    std::ofstream(old / "tensordiff-shard.jsonl", std::ios::binary)
        << std::regex_replace(t, std::regex("\"tensordiff\":\"[^\"]*\""), "\"tensordiff\":\"0.0.9\"", std::regex_constants::format_first_only);
    t.pop_back();
    std::ofstream(cut / "tensordiff-shard.jsonl", std::ios::binary) << t.substr(0, t.rfind('\n') + 1);
  }
  struct Refusal {
    fs::path third;
    const char* says;
  };
  for (const auto& [third, says] : {Refusal{"", "shard 3/3 is missing"}, Refusal{other, "inputs differ"},
                                    Refusal{fuzzy, "options differ"}, Refusal{old, "written by tensordiff 0.0.9"},
                                    Refusal{cut, "truncated"}, Refusal{s[1], "given twice"}}) {
    SCOPED_TRACE(says);
    const fs::path merged = out("merged");
    const CliRun r = td("merge -q " + merged.string() + " " + s[0].string() + " " + s[1].string() + " " + third.string());
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(merged / "summary.json"));
  }
  // A dump that changed after the shards ran.
  const fs::path moved = root / "tensor/npu/step1/rank2/dump_tensor_data/Functional.softmax.0.forward.output.0.pt";
  const std::string keep = slurp(moved);
  std::ofstream(moved, std::ios::binary | std::ios::app) << "xx";
  const CliRun r = td("merge -q " + out("merged").string() + " " + s[0].string() + " " + s[1].string() + " " + s[2].string());
  std::ofstream(moved, std::ios::binary) << keep;
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("the dumps changed"), std::string::npos) << r.err;
}

TEST_F(DistributedCompare, ACorruptTensorFileIsReportedInItsRow) {
  const fs::path o = out("one");
  const CliRun r = td("compare -q " + dumps("tensor") + " -o " + o.string());
  ASSERT_LE(r.code, 1) << r.err;
  std::string csv;
  for (const auto& [name, bytes] : outputs(o))
    if (name.find("step1_rank2") != std::string::npos) csv = bytes;
  EXPECT_NE(csv.find("Functional.softmax.0.forward.output.0.pt not found or read failed"), std::string::npos);
  // The other files of that run compare as usual.
  EXPECT_NE(csv.find("Functional.softmax.0.forward.input.0"), std::string::npos);
}

TEST_F(DistributedCompare, AKilledProcessEndsTheJobWithoutFinalOutputs) {
  if (!have_mpi()) GTEST_SKIP() << "no MPI";
  for (int victim : {1, 0}) {
    SCOPED_TRACE("process " + std::to_string(victim) + " killed");
    const fs::path o = out("killed");
    const auto t0 = std::chrono::steady_clock::now();
    const CliRun r = mpirun(2, "compare -q " + dumps("tensor") + " -o " + o.string(), "TD_TEST_DIE_ON_PROCESS=" + std::to_string(victim));
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
    EXPECT_NE(r.code, 0);
    EXPECT_NE(r.code, 124) << "timed out";
    for (const auto& [name, bytes] : outputs(o)) EXPECT_EQ(name.rfind(".tensordiff-partial", 0), 0u) << name << " under a final name";
  }
}

TEST_F(DistributedCompare, StepsRanksAndFilterNarrowTheComparison) {
  const fs::path all = out("all"), some = out("some"), filtered = out("filtered");
  ASSERT_LE(td("compare -q " + dumps("tensor") + " -o " + all.string()).code, 1);
  const CliRun r = td("compare -q " + dumps("tensor") + " --steps 1 --ranks 0,2-5 -o " + some.string());
  ASSERT_LE(r.code, 1) << r.err;
  const auto a = outputs(all), s = outputs(some);
  EXPECT_EQ(s.size(), 3u);  // two CSVs and summary.json
  for (const char* run : {"compare_result_step1_rank0_TS.csv", "compare_result_step1_rank2_TS.csv"}) {
    ASSERT_TRUE(s.count(run)) << run;
    EXPECT_TRUE(s.at(run) == a.at(run)) << run;
  }
  // --filter keeps the rows whose API/module name matches: here the Tensor.* API calls.
  const fs::path all2 = out("all2");
  ASSERT_LE(td("compare -q --jsonl " + dumps("tensor") + " -o " + all2.string()).code, 1);
  ASSERT_LE(td("compare -q --jsonl " + dumps("tensor") + " --filter ^Tensor\\\\. -o " + filtered.string()).code, 1);
  const auto a2 = outputs(all2), f = outputs(filtered);
  int files = 0;
  std::size_t kept = 0;
  for (const auto& [name, bytes] : a2) {
    if (name.find(".jsonl") == std::string::npos) continue;
    SCOPED_TRACE(name);
    ++files;
    std::istringstream in(bytes);
    std::string line, want;
    while (std::getline(in, line))
      if (nlohmann::json::parse(line).at("NPU Name").get<std::string>().rfind("Tensor.", 0) == 0) want += line + "\n";
    kept += want.size();
    EXPECT_EQ(f.at(name), want);
  }
  EXPECT_EQ(files, 5);
  EXPECT_GT(kept, 0u);
  for (const char* bad : {"--ranks 3-1", "--steps x", "--filter '('", "--ranks 7"}) {
    const CliRun b = td("compare -q " + dumps("tensor") + " " + bad + " -o " + out("bad").string());
    EXPECT_EQ(b.code, 2) << bad;
    EXPECT_EQ(std::count(b.err.begin(), b.err.end(), '\n'), 1) << b.err;
  }
}

TEST_F(DistributedCompare, SeveralTasksWithoutMpiWiringRefuseInsteadOfRacing) {
  // srun -n 2 without --mpi=pmix (or a CLI without MPI) would start two whole runs writing one OUT.
  for (const char* extra : {"", "--shard 1/2"}) {
    const fs::path o = out("race");
    const CliRun r = shell("SLURM_STEP_NUM_TASKS=2 " + cli + " compare -q " + dumps("md5") + " -o " + o.string() + " " + extra);
    EXPECT_EQ(r.code, 2) << extra;
    EXPECT_NE(r.err.find(*extra ? "--shard is for runs without" : mpiexec.empty() ? "built without MPI" : "without MPI's environment"),
              std::string::npos)
        << r.err;
    EXPECT_FALSE(fs::exists(o));
  }
}

TEST(DistributedCompareVersion, SaysWhetherMpiIsBuiltIn) {
  const CliRun r = td("--version");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find(mpiexec.empty() ? "MPI: not built" : "MPI: built with"), std::string::npos) << r.out;
}
}  // namespace
