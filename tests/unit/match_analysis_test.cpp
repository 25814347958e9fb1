// First divergence, per-module roll-up, step/rank discovery and the overflow
// scan, on the generated msprobe-layout scenarios (tests/data/dumps, facts in
// expected.json) and on small hand-built dumps.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/match/overflow.hpp>
#include <tensordiff/report/dump_analysis_json.hpp>

#include "match_test_util.hpp"

namespace td = tensordiff;
using namespace mt;

namespace {
constexpr double kStatRtol = 1e-5;

nlohmann::json expected(const std::string& scenario) {
  std::ifstream f(kDumps / scenario / "expected.json");
  return nlohmann::json::parse(f);
}

[[maybe_unused]] bool tensor_scenario(const nlohmann::json& e) { return e["task"] == "tensor"; }

td::match::DumpComparison run(const std::string& scenario, td::match::DivergenceOptions::Criterion c) {
  td::match::CompareRequest req;
  req.npu = kDumps / scenario / "npu";
  req.bench = kDumps / scenario / "bench";
  req.divergence.criterion = c;
  // statistics of a view and of its contiguous copy differ in the last bits (README of the dumps)
  req.divergence.stat_rtol = kStatRtol;
  return td::match::run_compare(req);
}

std::string opt(const std::optional<std::string>& s) { return s ? *s : "null"; }
std::string js(const nlohmann::json& j) { return j.is_null() ? "null" : j.get<std::string>(); }
}  // namespace

// Every scenario: rank/step discovery, counts and the divergence facts of expected.json.
class Scenario : public ::testing::TestWithParam<std::string> {};

TEST_P(Scenario, MatchesExpectedFacts) {
  const std::string sc = GetParam();
  if (!fs::exists(kDumps / sc / "expected.json")) GTEST_SKIP() << "scenario not generated";
  const auto e = expected(sc);
#if !defined(TD_IO_HAS_PT)
  if (tensor_scenario(e)) GTEST_SKIP() << "no .pt reader";
#endif
  const auto r = run(sc, td::match::DivergenceOptions::Criterion::any_difference);
  const auto& per = e["per_step_rank"];
  ASSERT_EQ(r.ranks.size(), per.size());
  std::size_t k = 0;
  for (auto it = per.begin(); it != per.end(); ++it, ++k) {
    const auto& x = it.value();
    const auto& rc = r.ranks[k];
    SCOPED_TRACE(sc + " " + it.key());
    // label "step0/rank0"; a bare "rank" folder keeps its name
    EXPECT_EQ(rc.step + "/" + (rc.rank >= 0 ? "rank" + std::to_string(rc.rank) : std::string("rank")), it.key());
    EXPECT_EQ(rc.npu_dump->entries.size(), x["npu_entries"].get<std::size_t>());
    EXPECT_EQ(rc.bench_dump->entries.size(), x["bench_entries"].get<std::size_t>());
    // NPU-only items: unmatched rows; bench-only items: reported separately
    std::vector<std::string> npu_only, bench_only;
    for (const auto& row : rc.rows)
      if (!row.matched() && row.gated_bench < 0 && rc.npu_items[row.npu].dtype.rfind("torch.", 0) == 0)
        npu_only.push_back(rc.npu_items[row.npu].name);
    for (std::size_t j : rc.bench_only)
      if (rc.bench_items[j].dtype.rfind("torch.", 0) == 0) bench_only.push_back(rc.bench_items[j].name);
    EXPECT_EQ(npu_only, x["npu_only_tensor_items"].get<std::vector<std::string>>());
    EXPECT_EQ(bench_only, x["bench_only_tensor_items"].get<std::vector<std::string>>());
    const auto& fd = r.divergences[k];
    if (x["first_divergent_item"].is_null()) {
      EXPECT_FALSE(fd.has_value()) << fd->first_item;
      continue;
    }
    ASSERT_TRUE(fd.has_value());
    EXPECT_EQ(fd->first_item, js(x["first_divergent_item"]));
    EXPECT_EQ(fd->first_item_entry, js(x["first_divergent_entry"]));
    EXPECT_EQ(opt(fd->first_module), js(x["first_divergent_module"]));
    EXPECT_EQ(opt(fd->first_api), js(x["first_divergent_api"]));
    EXPECT_EQ(opt(fd->origin_module), js(x["divergence_origin_module"]));
    EXPECT_EQ(opt(fd->origin_api), js(x["divergence_origin_api"]));
    // The divergence entry: outputs differ, inputs identical.
    if (!fd->entry.empty()) {
      for (std::size_t i = 0; i < rc.rows.size(); ++i) {
        const auto& it2 = rc.npu_items[rc.rows[i].npu];
        if (it2.entry != fd->entry || it2.is_output()) continue;
        if (it2.leaf && it2.leaf->kind != td::io::DumpLeaf::Kind::tensor) continue;  // scalar args may differ
        EXPECT_FALSE(td::match::detail::row_differs(rc, rc.rows[i], kStatRtol)) << it2.name;
      }
      EXPECT_FALSE(fd->failing_rows.empty());
      EXPECT_FALSE(fd->stack.empty());  // stack.json has every entry
    }
    // diverged item count (tensor items of both sides that differ)
    std::size_t diverged = 0;
    for (const auto& row : rc.rows)
      if (td::match::detail::row_differs(rc, row, kStatRtol)) ++diverged;
    EXPECT_EQ(diverged, x["diverged_tensor_items"].get<std::size_t>());
  }
}

INSTANTIATE_TEST_SUITE_P(Dumps, Scenario,
                         ::testing::Values("L0_bf16_tensor_perturbed", "L0_fp32_statistics_perturbed", "L1_bf16_vs_fp32_tensor",
                                           "L1_fp32_md5_perturbed", "L1_fp32_tensor_inf", "mix_fp32_statistics_api_mismatch",
                                           "mix_fp32_statistics_dtype_change", "mix_fp32_tensor_perturbed", "multirank_fp32_statistics",
                                           "multistep_fp32_statistics"));

TEST(Divergence, StepByStepReportsTheFirstStepAndRank) {
  if (!fs::exists(kDumps / "multistep_fp32_statistics" / "expected.json")) GTEST_SKIP();
  const auto r = run("multistep_fp32_statistics", td::match::DivergenceOptions::Criterion::any_difference);
  ASSERT_TRUE(r.first_divergence);
  EXPECT_EQ(r.first_divergence->step, "step1");
  EXPECT_EQ(r.first_divergence->rank, 0);
  EXPECT_EQ(r.first_divergence->entry, "Module.layers.0.Layer.forward.0");
  const auto j = td::report::summary_json(r);
  EXPECT_EQ(j["first_divergence"]["step"], "step1");
  EXPECT_TRUE(r.multi_rank);
}

TEST(Divergence, MultiRankDiscoversRanksInOrder) {
  if (!fs::exists(kDumps / "multirank_fp32_statistics" / "expected.json")) GTEST_SKIP();
  const auto r = run("multirank_fp32_statistics", td::match::DivergenceOptions::Criterion::any_difference);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].rank, 0);
  EXPECT_EQ(r.ranks[1].rank, 1);
  ASSERT_TRUE(r.first_divergence);
  EXPECT_EQ(r.first_divergence->rank, 1);
}

TEST(Rollup, ModuleTreeAggregatesDescendants) {
  if (!fs::exists(kDumps / "L0_fp32_statistics_perturbed" / "expected.json")) GTEST_SKIP();
  const auto r = run("L0_fp32_statistics_perturbed", td::match::DivergenceOptions::Criterion::any_difference);
  const auto& rc = r.ranks[0];
  td::match::DivergenceOptions any;
  any.criterion = td::match::DivergenceOptions::Criterion::any_difference;
  any.stat_rtol = kStatRtol;
  const auto nodes = td::match::module_rollup(rc, any);
  // Independent: for each node, the max |Max diff| over output rows of it and all entries below it in construct.json.
  std::map<std::string, std::optional<std::string>> parent;
  for (const auto& [n, p] : rc.npu_dump->construct->nodes) parent[n] = p;
  auto under = [&](std::string e, const std::string& node) {
    for (int guard = 0; guard < 100; ++guard) {
      if (e == node) return true;
      auto it = parent.find(e);
      if (it == parent.end() || !it->second) return false;
      e = *it->second;
    }
    return false;
  };
  std::size_t checked = 0;
  for (const auto& n : nodes) {
    double want = std::numeric_limits<double>::quiet_NaN();
    std::size_t rows = 0;
    for (const auto& row : rc.rows) {
      const auto& it = rc.npu_items[row.npu];
      if (!it.is_output() || !under(it.entry, n.node)) continue;
      ++rows;
      const auto* b = rc.bench_item(row);
      if (!b || !it.max.is_number() || !b->max.is_number()) continue;
      const double d = std::fabs(*it.max.as_double() - *b->max.as_double());
      want = std::isnan(want) ? d : std::max(want, d);
    }
    EXPECT_EQ(n.rows, rows) << n.node;
    if (std::isnan(want)) {
      EXPECT_TRUE(std::isnan(n.max_abs_err)) << n.node;
    } else {
      EXPECT_DOUBLE_EQ(n.max_abs_err, want) << n.node;
      ++checked;
    }
  }
  EXPECT_GT(checked, 5u);
  // the perturbed module shows error, its untouched sibling none
  for (const auto& n : nodes) {
    if (n.node == "Module.layers.1.mlp.MLP.forward.0") {
      EXPECT_GT(n.failing, 0u);
    }
    if (n.node == "Module.layers.0.mlp.MLP.forward.0") {
      EXPECT_EQ(n.failing, 0u);
    }
  }
}

TEST(Overflow, ScenesPerApiAndFirstCritical) {
  TempDir d("overflow");
  auto leaf = [](const char* max, const char* min, const char* mean, const char* norm) {
    return std::string(R"({"type": "torch.Tensor", "dtype": "torch.float16", "shape": [4], "Max": )") + max + ", \"Min\": " + min +
           ", \"Mean\": " + mean + ", \"Norm\": " + norm + "}";
  };
  const std::string ok = leaf("1.0", "-1.0", "0.0", "2.0");
  const std::string big = leaf("1.0", "-1.0", "0.0", "500.0");
  const std::string inf = leaf("Infinity", "-1.0", "Infinity", "Infinity");
  const std::string nan = leaf("NaN", "NaN", "NaN", "NaN");
  std::string s = R"({"task": "statistics", "level": "L1", "data": {)";
  s += R"("Torch.mul.0.forward": {"input_args": [)" + ok + "], \"output\": [" + big + "]},";    // mutation 250x
  s += R"("Torch.exp.0.forward": {"input_args": [)" + ok + "], \"output\": [" + inf + "]},";    // CRITICAL
  s += R"("Torch.add.0.forward": {"input_args": [)" + inf + "], \"output\": [" + nan + "]},";   // HIGH
  s += R"("Torch.isfinite.0.forward": {"input_args": [)" + nan + "], \"output\": [" + ok + "]},";  // MEDIUM
  s += R"("Torch.relu.0.forward": {"input_args": [)" + ok + "], \"output\": [" + ok + "]}";    // normal
  s += "}}";
  write_text(d.path / "rank0" / "dump.json", s);
  write_text(d.path / "rank0" / "construct.json", R"({"Torch.exp.0.forward": "Module.block.Block.forward.0"})");
  const auto reports = td::match::scan_overflow_folder(d.path);
  ASSERT_EQ(reports.size(), 1u);
  const auto& f = reports[0].findings;
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].op_name, "Torch.mul.0.forward");
  EXPECT_EQ(f[0].kind, "NumericalMutation");
  EXPECT_DOUBLE_EQ(f[0].norm_ratio, 250.0);
  EXPECT_EQ(f[1].scene, "CRITICAL");
  EXPECT_EQ(f[2].scene, "HIGH");
  EXPECT_EQ(f[3].scene, "MEDIUM");
  ASSERT_TRUE(reports[0].first_critical);
  EXPECT_EQ(f[*reports[0].first_critical].op_name, "Torch.exp.0.forward");
  const auto j = td::match::overflow_json(reports);
  ASSERT_TRUE(j.contains("rank_0"));
  EXPECT_EQ(j["rank_0"][1]["construct_info"], "Module.block.Block.forward.0");
  EXPECT_EQ(j["first_overflow"]["rank_0"], "Torch.exp.0.forward");
}

TEST(Overflow, GeneratedInfScenario) {
  if (!fs::exists(kDumps / "L1_fp32_tensor_inf" / "expected.json")) GTEST_SKIP();
  const auto reports = td::match::scan_overflow_folder(kDumps / "L1_fp32_tensor_inf" / "npu" / "step0");
  ASSERT_EQ(reports.size(), 1u);
  // masked_fill produces -inf from finite inputs: the first overflow node
  ASSERT_TRUE(reports[0].first_critical);
  EXPECT_EQ(reports[0].findings[*reports[0].first_critical].op_name, "Tensor.masked_fill.0.forward");
}

// Issue #13 B: when the first failing row is an unmatched item (here msprobe's InfNan error on an
// NPU-only call) no entry diverges with passing inputs; the summary still names the item's entry.
TEST(Divergence, FirstFailingUnmatchedItemIsNamed) {
  TempDir t("unmatched_first");
  auto leaf = [](const char* mx) {
    return std::string(R"({"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": )") + mx +
           R"(, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false})";
  };
  auto entry = [&](const std::string& name, const char* mx) {
    return "\"" + name + "\": {\"input_args\": [" + leaf(mx) + "], \"input_kwargs\": {}, \"output\": [" + leaf(mx) + "]}";
  };
  auto dump = [](const std::string& entries) {
    return R"({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {)" + entries + "}}";
  };
  write_text(t.path / "npu" / "dump.json", dump(entry("Torch.sigmoid.0.forward", "Infinity") + ", " + entry("Torch.relu.0.forward", "1.0")));
  write_text(t.path / "bench" / "dump.json", dump(entry("Torch.relu.0.forward", "1.0")));
  td::match::CompareRequest req;
  req.npu = t.path / "npu";
  req.bench = t.path / "bench";
  req.compat = td::match::Compat::msprobe;
  const auto r = td::match::run_compare(req);
  ASSERT_TRUE(r.first_divergence.has_value());
  EXPECT_EQ(r.first_divergence->entry, "");  // no clean divergence
  EXPECT_EQ(r.first_divergence->first_item, "Torch.sigmoid.0.forward.input.0");
  EXPECT_EQ(r.first_divergence->first_item_entry, "Torch.sigmoid.0.forward");
  const auto j = td::report::summary_json(r);
  EXPECT_EQ(j["first_divergence"]["entry"], "Torch.sigmoid.0.forward");
  EXPECT_EQ(j["ranks"][0]["first_divergence"]["entry"], "Torch.sigmoid.0.forward");
}
