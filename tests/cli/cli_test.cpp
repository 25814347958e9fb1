// The `tensordiff` CLI as a user runs it: output against the golden sidecars
// (written by numpy/torch), exit codes, and one-line errors on stderr.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <tensordiff/version.hpp>
#include <string>

#include "shell_run.hpp"

namespace fs = std::filesystem;

namespace {
using td_test::CliRun;

/// Runs the CLI with `args` (shell words), capturing stdout and stderr.
CliRun run(const std::string& args) { return td_test::shell(std::string(TD_CLI) + " " + args); }

std::string data(const std::string& rel) { return std::string(TD_TEST_DATA_DIR) + "/" + rel; }

nlohmann::json sidecar(const std::string& rel) {
  std::ifstream f(data(rel) + ".json");
  return nlohmann::json::parse(f);
}

double num(const nlohmann::json& j) {
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "nan") return NAN;
    return s == "-inf" ? -INFINITY : INFINITY;
  }
  return j.get<double>();
}

int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST(Cli, StatJsonMatchesGoldenSidecars) {
  for (const char* file : {"npy/float32_fortran_3x4.npy", "npy/float32_special.npy", "npy/float16_be.npy",
                           "npy/int16_fortran_2x3x4.npy", "npy/float64_empty_2x0x3.npy"}) {
    SCOPED_TRACE(file);
    const CliRun r = run(std::string("stat --json ") + data(file));
    ASSERT_EQ(r.code, 0) << r.err;
    const auto got = nlohmann::json::parse(r.out);
    const auto want = sidecar(file)["tensors"];
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      const auto &g = got[i], &w = want[i];
      EXPECT_EQ(g["path"], w["path"]);
      EXPECT_EQ(g["dtype"], w["dtype"]);
      EXPECT_EQ(g["shape"], w["shape"]);
      EXPECT_EQ(g["numel"], w["numel"]);
      EXPECT_EQ(g["md5"], w["md5"]);
      EXPECT_EQ(g["crc32"], w["crc32"]);
      std::set<std::string> keys;
      for (auto it = g.begin(); it != g.end(); ++it) keys.insert(it.key());
      EXPECT_EQ(keys, (std::set<std::string>{"path", "dtype", "shape", "numel", "min", "max", "finite_min",
                                             "finite_max", "mean", "sum", "l2norm", "nan_count", "inf_count", "md5",
                                             "crc32", "overflow"}));
      if (w["numel"] == 0) {
        EXPECT_TRUE(g["min"].is_null() && g["max"].is_null() && g["mean"].is_null());
        continue;
      }
      for (const char* k : {"min", "max", "sum"})
        if (w.contains(k)) {
          const double a = num(g[k]), b = num(w[k]);
          if (std::isnan(b)) {
            EXPECT_TRUE(std::isnan(a)) << k;
          } else {
            EXPECT_DOUBLE_EQ(a, b) << k;
          }
        }
      if (w.contains("l2") && !w["l2"].is_string()) {
        EXPECT_NEAR(num(g["l2norm"]), num(w["l2"]), 1e-12 * num(w["l2"]));
      }
    }
  }
}

TEST(Cli, StatNamesPathsOfPtContainers) {
  const std::string file = "pt/module_state_dict.pt";
  const CliRun r = run("stat --json " + data(file));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto got = nlohmann::json::parse(r.out);
  const auto want = sidecar(file)["tensors"];
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i]["path"], want[i]["path"]);
    EXPECT_EQ(got[i]["md5"], want[i]["md5"]);
  }
  const CliRun ls = run("ls " + data(file));
  EXPECT_EQ(ls.code, 0);
  EXPECT_EQ(lines(ls.out), static_cast<int>(want.size()));
}

TEST(Cli, DiffExitCodesFollowTheStandard) {
  const std::string a = data("npy/float32_fortran_3x4.npy");
  const CliRun same = run("diff " + a + " " + a);
  EXPECT_EQ(same.code, 0) << same.err;
  EXPECT_NE(same.out.find("verdict: pass"), std::string::npos) << same.out;

  // Same values, other dtype and layout: float32 Fortran vs float64 C order.
  const CliRun json = run("diff --json " + data("npy/float32_fortran_3x4.npy") + " " + data("npy/float32_3x4_c.npy"));
  if (fs::exists(data("npy/float32_3x4_c.npy"))) {
    EXPECT_EQ(json.code, 0);
  }

  const CliRun differ = run("diff --json " + data("npy/float32_2x3x4.npy") + " " + data("npy/float32_v2.npy"));
  // shapes may differ; either way the verdict is a failure or an input error, never a pass
  EXPECT_NE(differ.code, 0);
}

TEST(Cli, DiffJsonHasAllMetricsAndSaveDiffWritesNpy) {
  const std::string a = data("npy/float32_fortran_3x4.npy");
  const fs::path out = fs::temp_directory_path() / "td_cli_diff.npy";
  const CliRun r = run("diff --json --standard numpy " + a + " " + a + " --save-diff " + out.string());
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* k : {"cosine", "euc_dist", "max_abs_err", "max_abs_err_index", "max_rel_err", "mean_abs_err",
                        "mean_rel_err", "rmse", "one_thousandth_err_ratio", "five_thousandths_err_ratio",
                        "nan_inf_positions_match", "standard", "a", "b"})
    EXPECT_TRUE(j.contains(k)) << k;
  EXPECT_EQ(j["cosine"], 1.0);
  EXPECT_EQ(j["max_abs_err"], 0.0);
  EXPECT_EQ(j["standard"]["verdict"], "pass");
  EXPECT_EQ(j["a"]["md5"], sidecar("npy/float32_fortran_3x4.npy")["tensors"][0]["md5"]);
  const CliRun s = run("stat --json " + out.string());
  ASSERT_EQ(s.code, 0) << s.err;
  const auto st = nlohmann::json::parse(s.out);
  EXPECT_EQ(st[0]["dtype"], "float64");
  EXPECT_EQ(st[0]["shape"], nlohmann::json::array({3, 4}));
  EXPECT_EQ(st[0]["l2norm"], 0.0);
  fs::remove(out);
}

TEST(Cli, InputErrorsExitTwoWithOneLineNamingTheFile) {
  const CliRun missing = run("stat /nonexistent/x.npy");
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(lines(missing.err), 1) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/x.npy"), std::string::npos);

  const CliRun bad = run("stat " + data("npy/bad_magic.npy"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("bad_magic.npy"), std::string::npos);
  EXPECT_TRUE(bad.out.empty());

  const CliRun usage = run("diff only_one_arg");
  EXPECT_EQ(usage.code, 2);
  const CliRun standard = run("diff " + data("npy/float32_fortran_3x4.npy") + " " + data("npy/float32_fortran_3x4.npy") +
                           " --standard nonsense");
  EXPECT_EQ(standard.code, 2);
  EXPECT_NE(standard.err.find("nonsense"), std::string::npos);
}

TEST(Cli, CompareWritesCsvHtmlAndReportsFirstDivergence) {
  const fs::path out = fs::temp_directory_path() / ("td_cli_compare_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string demo = std::string(TD_SOURCE_DIR) + "/examples/data/demo_dump/";
  const CliRun r = run("compare " + demo + "npu " + demo + "bench -o " + out.string() + " --html --quiet");
  EXPECT_EQ(r.code, 1) << r.err;  // the demo NPU side has errors
  EXPECT_NE(r.out.find("first divergence: Module.layers.2."), std::string::npos) << r.out;
  // the innermost module where it starts (examples/data/demo_dump/expected.json, written by the generator)
  EXPECT_NE(r.out.find("origin module: Module.layers.2.attn.Attention.forward.0"), std::string::npos) << r.out;
  bool csv = false;
  for (const auto& e : fs::directory_iterator(out))
    csv = csv || (e.path().extension() == ".csv" && e.path().filename().string().rfind("compare_result_", 0) == 0);
  EXPECT_TRUE(csv);
  EXPECT_TRUE(fs::exists(out / "report.html"));
  EXPECT_TRUE(fs::exists(out / "summary.json"));
  EXPECT_TRUE(r.err.empty()) << "progress must stay off when stderr is not a terminal: " << r.err;

  const CliRun strict_same = run("compare " + demo + "bench " + demo + "bench -o " + out.string() + " --quiet");
  EXPECT_EQ(strict_same.code, 0) << strict_same.out << strict_same.err;
  EXPECT_NE(strict_same.out.find("first divergence: none"), std::string::npos);

  const CliRun wrong_mode = run("compare " + demo + "npu " + demo + "bench -o " + out.string() + " --mode md5 --quiet");
  EXPECT_EQ(wrong_mode.code, 2);
  EXPECT_EQ(lines(wrong_mode.err), 1) << wrong_mode.err;
  fs::remove_all(out);
}

TEST(Cli, CompareWritesOneHtmlReportForAllRanksAndSteps) {
  for (const char* scenario : {"multirank_fp32_statistics", "multistep_fp32_statistics"}) {
    SCOPED_TRACE(scenario);
    const fs::path out = fs::temp_directory_path() / ("td_cli_html_" + std::to_string(::getpid()));
    fs::remove_all(out);
    const std::string dumps = data(std::string("dumps/") + scenario + "/");
    const CliRun r = run("compare " + dumps + "npu " + dumps + "bench -o " + out.string() + " --html --quiet");
    EXPECT_LE(r.code, 1) << r.err;
    std::vector<std::string> html, csv;
    for (const auto& e : fs::directory_iterator(out)) {
      if (e.path().extension() == ".html") html.push_back(e.path().filename().string());
      if (e.path().extension() == ".csv") csv.push_back(e.path().filename().string());
    }
    EXPECT_EQ(html, std::vector<std::string>{"report.html"});
    EXPECT_EQ(csv.size(), 2u);  // still one CSV per rank and step
    std::ifstream f(out / "report.html");
    const std::string page((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (const char* label : {"\"label\":\"step0/rank0\"", std::string(scenario).find("multirank") == 0 ? "\"label\":\"step0/rank1\""
                                                                                                     : "\"label\":\"step1/rank0\""})
      EXPECT_NE(page.find(label), std::string::npos) << label;
    fs::remove_all(out);
  }
}

TEST(Cli, VersionNamesTheKernelTarget) {
  const CliRun r = run("--version");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(TD_VERSION_STRING, 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\nkernel: "), std::string::npos) << r.out;  // "highway AVX3 (run-time dispatch)" or "scalar"
}

TEST(Cli, VersionNamesThePrefetchChoiceOfAvx512Targets) {
  for (const std::string setting : {"0", "1"}) {
    const CliRun r = td_test::shell("TD_HWY_PREFETCH=" + setting + " " + TD_CLI + " --version");
    ASSERT_EQ(r.code, 0) << r.err;
    const bool avx512 = r.out.find("\nkernel: highway AVX3") != std::string::npos;
    const std::string want = std::string(", prefetch ") + (setting == "1" ? "on" : "off") + ": TD_HWY_PREFETCH=" + setting + ")";
    EXPECT_EQ(r.out.find(want) != std::string::npos, avx512) << r.out;
  }
}

TEST(Cli, DiffMetricsSelectsTheMetricSet) {
  const std::string a = data("npy/float32_fortran_3x4.npy");
  const CliRun r = run("diff --json --metrics cosine,max_rel " + a + " " + a);
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cosine"], 1.0);
  EXPECT_EQ(j["max_rel_err"], 0.0);
  EXPECT_EQ(j["max_abs_err"], "not requested");
  EXPECT_EQ(j["rmse"], "not requested");
  const CliRun but = run("diff --json --metrics all,-mean_rel " + a + " " + a);
  ASSERT_EQ(but.code, 0) << but.err;
  const auto k = nlohmann::json::parse(but.out);
  EXPECT_EQ(k["mean_rel_err"], "not requested");
  EXPECT_EQ(k["max_abs_err"], 0.0);
  const CliRun bad = run("diff --metrics cosine,bogus " + a + " " + a);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("unknown metric 'bogus'"), std::string::npos) << bad.err;
}

// --compat msprobe: msprobe's file suffix (the NPU rank folder's name), and statistics + fuzzy,
// which msprobe 26.0 cannot write (tests/data/msprobe_goldens/cases.json records its error):
// tensordiff writes the table and says so in one line on stderr.
TEST(Cli, CompatMsprobeNamesFilesAndWarnsOnStatisticsFuzzy) {
  const fs::path out = fs::temp_directory_path() / ("td_cli_compat_" + std::to_string(::getpid()));
  fs::remove_all(out);
  const std::string c = data("msprobe_goldens/cases/fuzzy_stats_statistics/");
  const CliRun r = run("compare " + c + "npu/step0 " + c + "bench/step0 -o " + out.string() + " --fuzzy --compat msprobe --quiet");
  EXPECT_LE(r.code, 1) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("msprobe 26.0 cannot produce this table"), std::string::npos) << r.err;
  bool named = false;
  for (const auto& e : fs::directory_iterator(out)) named = named || e.path().filename().string().rfind("compare_result_proc4242_", 0) == 0;
  EXPECT_TRUE(named);
  const CliRun quiet = run("compare " + c + "npu/step0 " + c + "bench/step0 -o " + out.string() + " --fuzzy --quiet");
  EXPECT_TRUE(quiet.err.empty()) << quiet.err;  // the default mode has nothing to warn about
  fs::remove_all(out);
}

// Issue #13 B: a first failing row that is an unmatched item is named in the text summary and in
// summary.json (it printed "first divergence:  (rank0)" and a null entry).
TEST(Cli, FirstDivergenceNamesAnUnmatchedItem) {
  const fs::path root = fs::temp_directory_path() / ("td_cli_unmatched_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto leaf = [](const char* mx) {
    return std::string(R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": )") + mx +
           R"(, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false})";
  };
  auto entry = [&](const std::string& name, const char* mx) {
    return "\"" + name + "\": {\"input_args\": [" + leaf(mx) + "], \"input_kwargs\": {}, \"output\": [" + leaf(mx) + "]}";
  };
  auto write_dump = [&](const std::string& side, const std::string& entries) {
    fs::create_directories(root / side / "rank0");
    std::ofstream(root / side / "rank0" / "dump.json")
        << R"({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {)" << entries << "}}";
  };
  write_dump("npu", entry("Torch.sigmoid.0.forward", "Infinity") + ", " + entry("Torch.relu.0.forward", "1.0"));
  write_dump("bench", entry("Torch.relu.0.forward", "1.0"));
  const fs::path out = root / "out";
  const CliRun r = run("compare " + (root / "npu").string() + " " + (root / "bench").string() + " -o " + out.string() +
                       " --compat msprobe --quiet");
  EXPECT_NE(r.out.find("first divergence: Torch.sigmoid.0.forward (rank0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("first failing item: Torch.sigmoid.0.forward.input.0"), std::string::npos) << r.out;
  std::ifstream s(out / "summary.json");
  const auto j = nlohmann::json::parse(s);
  EXPECT_EQ(j["first_divergence"]["entry"], "Torch.sigmoid.0.forward");
  EXPECT_EQ(j["ranks"][0]["first_divergence"]["entry"], "Torch.sigmoid.0.forward");
  fs::remove_all(root);
}

// `tensordiff dump` turns the TF precision_tool folders of tests/data/plain_dumps into msprobe-layout
// dumps; compare pairs them as tests/data/plain_dumps/expected.json says (written by its generator).
TEST(Cli, DumpConvertsPlainFoldersThatCompareThenPairs) {
  const fs::path out = fs::temp_directory_path() / ("td_cli_dump_" + std::to_string(::getpid()));
  fs::remove_all(out);
  std::ifstream ef(data("plain_dumps/expected.json"));
  const auto expected = nlohmann::json::parse(ef);
  for (const char* side : {"npu", "bench"}) {
    const CliRun r = run("dump --from " + data(std::string("plain_dumps/") + side) + " --to " + (out / side).string() +
                         " --rank 0");
    ASSERT_EQ(r.code, 0) << r.err;
    std::ifstream f(out / side / "step0" / "rank0" / "dump.json");
    const auto d = nlohmann::json::parse(f);
    EXPECT_EQ(d["task"], "tensor");
    for (const auto& key : expected["pairs"]) {
      const std::string k = key.get<std::string>();
      const std::string entry = "Op." + k.substr(0, k.rfind('.')) + ".0.forward";  // {op}.{output index}
      EXPECT_TRUE(d["data"].contains(entry)) << side << " " << entry;
    }
  }
  const CliRun c = run("compare " + (out / "npu").string() + " " + (out / "bench").string() + " -o " +
                       (out / "cmp").string() + " --quiet");
  EXPECT_EQ(c.code, 1) << c.err;
  const std::string first = expected["first_divergent_in_npu_timestamp_order"];
  EXPECT_NE(c.out.find("first divergence: Op." + first.substr(0, first.rfind('.')) + ".0.forward"), std::string::npos)
      << c.out;
  const CliRun bad = run("dump --from " + data("no_such_folder") + " --to " + (out / "x").string());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("no_such_folder"), std::string::npos) << bad.err;
  fs::remove_all(out);
}
