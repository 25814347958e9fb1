// Matchers: exact (backward renumbering), fuzzy (§5.3), data / cell / API
// mapping (§5.5–§5.7) and their YAML files. Expected names follow the spec's
// algorithms, worked by hand.
#include <gtest/gtest.h>

#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/match/layer_mapping.hpp>
#include <tensordiff/match/mapping_files.hpp>

#include "match_test_util.hpp"

namespace td = tensordiff;
namespace m = tensordiff::match;
using namespace mt;

namespace {
std::string leaf(const char* dtype = "torch.float32") {
  return std::string(R"({"type": "torch.Tensor", "dtype": ")") + dtype + R"(", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0})";
}
/// An entry with one input and one output leaf.
std::string entry(const std::string& name, const char* dtype = "torch.float32") {
  return "\"" + name + R"(": {"input_args": [)" + leaf(dtype) + R"(], "output": [)" + leaf(dtype) + "]}";
}
std::string dump(const std::vector<std::string>& entries, const char* framework = "pytorch") {
  std::string s = std::string(R"({"task": "statistics", "level": "mix", "framework": ")") + framework + R"(", "data": {)";
  for (std::size_t i = 0; i < entries.size(); ++i) s += (i ? ", " : "") + entries[i];
  return s + "}}";
}

struct Dumps {
  TempDir d{"matchers"};
  Dumps(const std::string& npu, const std::string& bench) {
    write_text(d.path / "npu" / "dump.json", npu);
    write_text(d.path / "bench" / "dump.json", bench);
  }
  m::RankComparison run(std::shared_ptr<const m::Matcher> matcher, m::Compat c = m::Compat::tensordiff) const {
    m::CompareRequest req;
    req.npu = d.path / "npu";
    req.bench = d.path / "bench";
    req.matcher = std::move(matcher);
    req.compat = c;
    return std::move(m::run_compare(req).ranks.at(0));
  }
};

/// NPU item name → bench item name ("" when unmatched).
std::map<std::string, std::string> pairs(const m::RankComparison& rc) {
  std::map<std::string, std::string> p;
  for (const auto& r : rc.rows) p[rc.npu_items[r.npu].name] = r.matched() ? rc.bench_items[r.bench].name : "";
  return p;
}
}  // namespace

TEST(ExactMatcher, BackwardCallNumbersAreRenumbered) {
  Dumps d(dump({entry("Functional.linear.0.forward"), entry("Functional.linear.3.backward"), entry("Functional.linear.8.backward")}),
          dump({entry("Functional.linear.0.forward"), entry("Functional.linear.5.backward"), entry("Functional.linear.6.backward")}));
  const auto rc = d.run(nullptr);
  const auto p = pairs(rc);
  EXPECT_EQ(p.at("Functional.linear.0.forward.input.0"), "Functional.linear.0.forward.input.0");
  EXPECT_EQ(p.at("Functional.linear.3.backward.input.0"), "Functional.linear.5.backward.input.0");
  EXPECT_EQ(p.at("Functional.linear.8.backward.output.0"), "Functional.linear.6.backward.output.0");
  EXPECT_EQ(rc.rows[0].match_reason, "exact");
  EXPECT_NE(rc.rows[2].match_reason.find("renumbered"), std::string::npos);
  EXPECT_TRUE(rc.bench_only.empty());
}

TEST(ExactMatcher, UnmatchedAndBenchOnly) {
  Dumps d(dump({entry("Torch.a.0.forward"), entry("Torch.b.0.forward")}), dump({entry("Torch.b.0.forward"), entry("Torch.c.0.forward")}));
  const auto rc = d.run(nullptr);
  const auto p = pairs(rc);
  EXPECT_EQ(p.at("Torch.a.0.forward.input.0"), "");
  EXPECT_EQ(p.at("Torch.b.0.forward.output.0"), "Torch.b.0.forward.output.0");
  ASSERT_EQ(rc.bench_only.size(), 2u);
  EXPECT_EQ(rc.bench_items[rc.bench_only[0]].name, "Torch.c.0.forward.input.0");
  // Compat::msprobe drops bench-only items
  EXPECT_TRUE(d.run(nullptr, m::Compat::msprobe).bench_only.empty());
}

TEST(FuzzyMatcher, NamesAsSpecified) {
  // spec §5.3 examples
  EXPECT_EQ(m::fuzzy_name("Functional.linear.3.forward.input.0", m::Compat::msprobe), "Functional.linear.forward.input.0");
  EXPECT_EQ(m::fuzzy_name("Functional.linear.3.forward.input.0", m::Compat::tensordiff), "Functional.linear.forward.input.0");
  EXPECT_EQ(m::fuzzy_name("Module.fc1.Linear.forward.0.input.0", m::Compat::msprobe), "Module.fc1.forward.0.input.0");
  EXPECT_EQ(m::fuzzy_name("Module.fc1.Linear.forward.0.input.0", m::Compat::tensordiff), "Module.fc1.forward.0.input.0");
  EXPECT_EQ(m::fuzzy_name("Torch.add.12.backward.output.1", m::Compat::tensordiff), "Torch.add.backward.output.1");
  // "feed_forward": msprobe splits at the substring (Python str.split('forward')[0:2])
  EXPECT_EQ(m::fuzzy_name("Module.layers.0.feed_forward.FFN.forward.0.input.0", m::Compat::msprobe), "Module.layers.forward.FFN.");
  EXPECT_EQ(m::fuzzy_name("Module.layers.0.feed_forward.FFN.forward.0.input.0", m::Compat::tensordiff),
            "Module.layers.0.feed_forward.forward.0.input.0");
}

TEST(FuzzyMatcher, GreedyQueuesPairCallNumberShifts) {
  Dumps d(dump({entry("Torch.extra.0.forward"), entry("Functional.linear.3.forward"), entry("Module.fc1.Linear.forward.0"),
                entry("Torch.relu.2.forward")}),
          dump({entry("Functional.linear.0.forward"), entry("Module.fc1.Dense.forward.0"), entry("Torch.relu.0.forward")}));
  const auto rc = d.run(std::make_shared<m::FuzzyMatcher>());
  const auto p = pairs(rc);
  EXPECT_EQ(p.at("Torch.extra.0.forward.input.0"), "");
  EXPECT_EQ(p.at("Functional.linear.3.forward.input.0"), "Functional.linear.0.forward.input.0");
  EXPECT_EQ(p.at("Module.fc1.Linear.forward.0.output.0"), "Module.fc1.Dense.forward.0.output.0");
  EXPECT_EQ(p.at("Torch.relu.2.forward.output.0"), "Torch.relu.0.forward.output.0");
  for (const auto& r : rc.rows)
    if (r.matched()) {
      EXPECT_EQ(r.match_reason.rfind("fuzzy: ", 0), 0u) << r.match_reason;
    }
}

TEST(FuzzyMatcher, FeedForwardModulesPairOnlyWithoutTheQuirk) {
  // Two different modules whose names differ only after "feed_forward": msprobe's
  // mangled names collide (both become "Module.layers.forward.FFN."-like keys).
  Dumps d(dump({entry("Module.layers.0.feed_forward.FFN.forward.0")}), dump({entry("Module.layers.1.feed_forward.FFN.forward.0")}));
  const auto ours = pairs(d.run(std::make_shared<m::FuzzyMatcher>()));
  EXPECT_EQ(ours.at("Module.layers.0.feed_forward.FFN.forward.0.input.0"), "");  // layer 0 is not layer 1
  const auto theirs = pairs(d.run(std::make_shared<m::FuzzyMatcher>(), m::Compat::msprobe));
  EXPECT_EQ(theirs.at("Module.layers.0.feed_forward.FFN.forward.0.input.0"), "Module.layers.1.feed_forward.FFN.forward.0.input.0");
}

TEST(CellMapping, CellToModuleAndClassRenames) {
  m::CellMappingMatcher plain;
  EXPECT_EQ(*plain.map_name("Cell.fc2.Linear.forward.0.input.0"), "Module.fc2.Linear.forward.0.input.0");
  EXPECT_FALSE(plain.map_name("Functional.abs.0"));  // no forward/backward/parameters_grad → N/A
  m::CellMappingMatcher mapped({{"fc2.Dense", "fc2.Linear"},
                                {"MindSpeedTELayerNormColumnParallelLinear", "TELayerNormColumnParallelLinear"}});
  EXPECT_EQ(*mapped.map_name("Cell.fc2.Dense.forward.0.output.0"), "Module.fc2.Linear.forward.0.output.0");
  EXPECT_EQ(*mapped.map_name("Cell.layers.0.qkv.MindSpeedTELayerNormColumnParallelLinear.backward.0.input.0"),
            "Module.layers.0.qkv.TELayerNormColumnParallelLinear.backward.0.input.0");
  EXPECT_EQ(*mapped.map_name("Cell.fc2.Dense.parameters_grad.weight"), "Module.fc2.Linear.parameters_grad.weight");
  Dumps d(dump({entry("Cell.fc2.Dense.forward.0", "Float32")}, "mindspore"), dump({entry("Module.fc2.Linear.forward.0")}));
  const auto rc = d.run(std::make_shared<m::CellMappingMatcher>(mapped));
  EXPECT_EQ(pairs(rc).at("Cell.fc2.Dense.forward.0.input.0"), "Module.fc2.Linear.forward.0.input.0");
  EXPECT_NE(rc.rows[0].match_reason.find("cell mapping"), std::string::npos);
}

TEST(ApiMapping, RulesBuiltinsAndUserList) {
  m::ApiMappingMatcher builtin;
  EXPECT_EQ(*builtin.map_name("Mint.abs.0.forward.input.0"), "Torch.abs.0.forward.input.0");
  EXPECT_EQ(*builtin.map_name("MintFunctional.relu.1.forward.output.0"), "Functional.relu.1.forward.output.0");
  EXPECT_EQ(*builtin.map_name("Functional.abs.0.forward.input.0"), "Torch.abs.0.forward.input.0");
  EXPECT_EQ(*builtin.map_name("Functional.concat.2.forward.output.0"), "Torch.cat.2.forward.output.0");
  EXPECT_EQ(*builtin.map_name("Tensor.add.0.forward.input.0"), "Tensor.add.0.forward.input.0");
  m::ApiMapEntry e;
  e.ms_api = "Functional.foo";
  e.pt_api = "Torch.bar";
  e.ms_args = {0, 1};
  e.pt_args = {1, 0};
  e.ms_outputs = {0};
  e.pt_outputs = {0};
  m::ApiMappingMatcher user({e});
  EXPECT_EQ(*user.map_name("Functional.foo.0.forward.input.0"), "Torch.bar.0.forward.input.1");
  EXPECT_EQ(*user.map_name("Functional.foo.0.forward.input.1"), "Torch.bar.0.forward.input.0");
  EXPECT_EQ(*user.map_name("Functional.foo.0.forward.output.0"), "Torch.bar.0.forward.output.0");
  EXPECT_FALSE(user.map_name("Functional.foo.0.forward.input.2"));  // unlisted: abandoned
  Dumps d(dump({entry("Mint.abs.0.forward", "Float32")}, "mindspore"), dump({entry("Torch.abs.0.forward")}));
  const auto rc = d.run(std::make_shared<m::ApiMappingMatcher>());
  EXPECT_EQ(pairs(rc).at("Mint.abs.0.forward.output.0"), "Torch.abs.0.forward.output.0");  // Float32 ~ torch.float32 (class float)
  EXPECT_NE(rc.rows[0].match_reason.find("api mapping"), std::string::npos);
}

TEST(LayerMapping, RenamesScopesAndFindsApisByParent) {
  TempDir t("layer");
  const std::string ms = dump({entry("Cell.network.layers.0.ParallelTransformerLayer.forward.0", "Float32"),
                               entry("Cell.network.layers.0.attention.ParallelAttention.forward.0", "Float32"),
                               entry("Cell.network.layers.0.attention.qkv_proj.Dense.forward.0", "Float32"),
                               entry("Functional.matmul.0.forward", "Float32"), entry("Functional.matmul.1.forward", "Float32")},
                              "mindspore");
  const std::string pt = dump({entry("Module.module.layers.0.ParallelTransformerLayer.forward.0"),
                               entry("Module.module.layers.0.self_attention.ParallelAttention.forward.0"),
                               entry("Module.module.layers.0.self_attention.query_key_value.Linear.forward.0"),
                               entry("Torch.matmul.4.forward"), entry("Torch.matmul.5.forward")});
  Dumps d(ms, pt);
  write_text(d.d.path / "npu" / "construct.json",
             R"({"Cell.network.layers.0.ParallelTransformerLayer.forward.0": null,
                 "Cell.network.layers.0.attention.ParallelAttention.forward.0": "Cell.network.layers.0.ParallelTransformerLayer.forward.0",
                 "Cell.network.layers.0.attention.qkv_proj.Dense.forward.0": "Cell.network.layers.0.attention.ParallelAttention.forward.0",
                 "Functional.matmul.0.forward": "Cell.network.layers.0.attention.ParallelAttention.forward.0",
                 "Functional.matmul.1.forward": "Cell.network.layers.0.ParallelTransformerLayer.forward.0"})");
  write_text(d.d.path / "bench" / "construct.json",
             R"({"Module.module.layers.0.ParallelTransformerLayer.forward.0": null,
                 "Module.module.layers.0.self_attention.ParallelAttention.forward.0": "Module.module.layers.0.ParallelTransformerLayer.forward.0",
                 "Module.module.layers.0.self_attention.query_key_value.Linear.forward.0": "Module.module.layers.0.self_attention.ParallelAttention.forward.0",
                 "Torch.matmul.4.forward": "Module.module.layers.0.ParallelTransformerLayer.forward.0",
                 "Torch.matmul.5.forward": "Module.module.layers.0.self_attention.ParallelAttention.forward.0"})");
  m::LayerMapping lm = {{"Cell", {{"network", "module"}}},
                        {"ParallelTransformerLayer", {{"attention", "self_attention"}}},
                        {"ParallelAttention", {{"qkv_proj", "query_key_value"}}}};
  const auto rc = d.run(std::make_shared<m::LayerMappingMatcher>(lm));
  const auto p = pairs(rc);
  EXPECT_EQ(p.at("Cell.network.layers.0.ParallelTransformerLayer.forward.0.input.0"),
            "Module.module.layers.0.ParallelTransformerLayer.forward.0.input.0");
  EXPECT_EQ(p.at("Cell.network.layers.0.attention.qkv_proj.Dense.forward.0.output.0"),
            "Module.module.layers.0.self_attention.query_key_value.Linear.forward.0.output.0");
  // APIs by (mapped parent, API name, occurrence): call numbers differ across frameworks
  EXPECT_EQ(p.at("Functional.matmul.0.forward.input.0"), "Torch.matmul.5.forward.input.0");
  EXPECT_EQ(p.at("Functional.matmul.1.forward.output.0"), "Torch.matmul.4.forward.output.0");
  EXPECT_NE(rc.rows[0].match_reason.find("layer mapping"), std::string::npos);
}

#if defined(TD_HAS_YAML)
TEST(MappingFiles, DataMappingHasNoDtypeGate) {
  TempDir t("yaml");
  write_text(t.path / "dm.yaml", "Torch.a.0.forward.input.0: Torch.b.0.forward.input.0\n");
  Dumps d(dump({entry("Torch.a.0.forward", "torch.int32")}), dump({entry("Torch.b.0.forward", "torch.int64")}));
  const auto rc = d.run(m::load_data_mapping((t.path / "dm.yaml").string()));
  const auto p = pairs(rc);
  EXPECT_EQ(p.at("Torch.a.0.forward.input.0"), "Torch.b.0.forward.input.0");
  EXPECT_EQ(p.at("Torch.a.0.forward.output.0"), "");
  EXPECT_EQ(rc.rows[0].match_reason, "data mapping: Torch.a.0.forward.input.0 -> Torch.b.0.forward.input.0");
}

TEST(MappingFiles, ApiListAndCellFiles) {
  TempDir t("yaml");
  write_text(t.path / "am.yaml",
             "- {ms_api: Functional.foo, pt_api: Torch.bar, ms_args: [0], pt_args: [0], ms_outputs: [0], pt_outputs: [0]}\n"
             "- {ms_api: Functional.bad, pt_api: Torch.bad, ms_args: [0, 1], pt_args: [0], ms_outputs: [0], pt_outputs: [0]}\n");
  std::vector<std::string> skipped;
  const auto am = m::load_api_mapping((t.path / "am.yaml").string(), &skipped);
  EXPECT_EQ(*am->map_name("Functional.foo.0.forward.input.0"), "Torch.bar.0.forward.input.0");
  EXPECT_EQ(skipped, std::vector<std::string>{"Functional.bad"});
  write_text(t.path / "cm.yaml", "fc2.Dense: fc2.Linear\n");
  EXPECT_EQ(*m::load_cell_mapping((t.path / "cm.yaml").string())->map_name("Cell.fc2.Dense.forward.0.input.0"),
            "Module.fc2.Linear.forward.0.input.0");
}

TEST(MappingFiles, ErrorsNameTheFile) {
  TempDir t("yaml");
  write_text(t.path / "bad.yaml", "a: [1, 2\n");
  try {
    m::load_data_mapping((t.path / "bad.yaml").string());
    FAIL();
  } catch (const td::Error& e) {
    EXPECT_EQ(e.context().file, (t.path / "bad.yaml").string());
    EXPECT_EQ(e.category(), td::ErrorCategory::format);
  }
  write_text(t.path / "list.yaml", "- a\n- b\n");
  try {
    m::load_data_mapping((t.path / "list.yaml").string());
    FAIL();
  } catch (const td::Error& e) {
    EXPECT_EQ(e.context().file, (t.path / "list.yaml").string());
  }
  try {
    m::load_data_mapping((t.path / "missing.yaml").string());
    FAIL();
  } catch (const td::Error& e) {
    EXPECT_EQ(e.category(), td::ErrorCategory::io);
  }
}
#else
TEST(MappingFiles, WithoutYamlTheErrorSaysSo) {
  try {
    m::load_data_mapping("x.yaml");
    FAIL();
  } catch (const td::Error& e) {
    EXPECT_EQ(e.category(), td::ErrorCategory::unsupported);
    EXPECT_NE(std::string(e.what()).find("yaml-cpp"), std::string::npos);
  }
}
#endif
