// The HTML report: its embedded data decodes back to the model (decoded here
// from the layout documented in html_data.hpp, independently of the page's
// script), the page stays offline and escaped, and the dump adapter puts a
// whole multi-rank / multi-step comparison in one report. What the page does
// with the data in a browser is checked by scripts/check-html-report.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tensordiff/match/compare_dumps.hpp>
#include <tensordiff/report/html_dump.hpp>

#include "match_test_util.hpp"

namespace td = tensordiff;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {
using mt::kDumps;

td::report::HtmlRow row(const std::string& entry, const std::string& suffix, const std::string& status) {
  td::report::HtmlRow r;
  r.entry = entry;
  r.name = entry + suffix;
  r.bench_name = r.name;
  r.status = status;
  r.npu_dtype = r.bench_dtype = "torch.float32";
  r.npu_shape = r.bench_shape = "[2, 3]";
  return r;
}

td::report::HtmlReport sample() {
  td::report::HtmlReport r;
  r.npu_path = "npu/<dump>";
  r.bench_path = "bench/dump";
  r.mode = "tensor";
  td::report::HtmlRun a;
  a.step = "step0";
  a.rank = 0;
  a.label = "step0/rank0";
  a.modules = {{"Module.layers.0.Layer.forward.0", std::nullopt, 0.5, 0.25, "error"},
               {"Module.layers.0.mlp.MLP.forward.0", 0, 0.5, 0.25, "error"},
               {"Functional.linear.0.forward", 1, 1.0, 0.0, "pass"}};
  a.stacks = {{"File model.py, line 10, in forward, \n x = self.mlp(x)"}, {"File model.py, line 20, in mlp"}};
  a.rows.push_back(row("Module.layers.0.Layer.forward.0", ".input.0", "pass"));
  a.rows.push_back(row("Functional.linear.0.forward", ".output.0", "pass"));
  a.rows.push_back(row("Module.layers.0.mlp.MLP.forward.0", ".output.0", "error"));
  a.rows.push_back(row("Module.layers.0.Layer.forward.0", ".output.0", "warning"));
  a.rows.push_back(row("Tensor.only_on_npu.0.forward", ".output.0", "unmatched"));  // entry without a node
  a.rows[0].cosine = 1.0, a.rows[0].max_abs_err = 0.0, a.rows[0].max_rel_err = 0.0;
  a.rows[1].cosine = 0.999999987654, a.rows[1].max_abs_err = 1.2345678901e-7;
  a.rows[2].cosine = std::nan(""), a.rows[2].max_abs_err = INFINITY, a.rows[2].max_rel_err = -INFINITY;
  a.rows[2].message = "error: </script><script>alert(1)</script> & more";
  a.rows[2].npu_dtype = "torch.bfloat16";
  a.rows[3].bench_name = "Module.layers.0.Layer.forward.1.output.0";  // fuzzy match
  a.rows[3].bench_shape = "[3, 2]";
  a.rows[4].bench_name = a.rows[4].bench_dtype = a.rows[4].bench_shape = "";
  a.rows[0].stack = 0, a.rows[2].stack = 1, a.rows[3].stack = 0;
  a.first_divergence_row = 2;
  a.first_divergence_name = "Module.layers.0.mlp.MLP.forward.0";
  a.first_divergence_origin = "Module.layers.0.mlp.MLP.forward.0";
  a.first_divergence_messages = {"error: The shape of NPU and Bench are inconsistent."};
  a.bench_only = {"Torch.only_in_bench.0.forward.output.0"};
  td::report::HtmlRun b;
  b.step = "step0";
  b.rank = 1;
  b.label = "step0/rank1";
  b.rows.push_back(row("Module.layers.0.Layer.forward.0", ".input.0", "pass"));
  r.runs = {a, b};
  r.first_divergence_run = 0;
  return r;
}

/// The JSON inside <script type="application/json" id="td-data">.
json embedded(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"td-data\">";
  const auto at = html.find(open);
  EXPECT_NE(at, std::string::npos);
  const auto end = html.find("</script>", at);
  return json::parse(html.substr(at + open.size(), end - at - open.size()));
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

/// One row decoded from the columnar layout of html_data.hpp.
struct Decoded {
  std::string name, bench, dtype, bench_dtype, shape, bench_shape, status, message, stack;
  json cos, abs, rel;
};

Decoded decode(const json& d, const json& run, std::size_t i) {
  const auto& S = d["strings"];
  auto str = [&](const json& k) { return S.at(k.get<std::size_t>()).get<std::string>(); };
  auto rel = [&](const json& code, const std::string& same) {
    const long long c = code.get<long long>();
    return c == 0 ? same : c < 0 ? std::string() : S.at(static_cast<std::size_t>(c - 1)).get<std::string>();
  };
  Decoded o;
  const long long e = run["e"][i].get<long long>();
  o.name = (e < 0 ? std::string() : str(run["nodes"]["name"][static_cast<std::size_t>(e)])) + str(run["sfx"][i]);
  o.bench = rel(run["bench"][i], o.name);
  o.dtype = str(run["dt"][i]);
  o.bench_dtype = rel(run["bdt"][i], o.dtype);
  o.shape = str(run["shape"][i]);
  o.bench_shape = rel(run["bshape"][i], o.shape);
  const char st = run["st"].get<std::string>()[i];
  o.status = st == 'p' ? "pass" : st == 'w' ? "warning" : st == 'e' ? "error" : st == 'u' ? "unmatched" : "?";
  o.message = run["msg"][i] == -1 ? "" : str(run["msg"][i]);
  o.stack = run["stack"][i] == -1 ? "" : str(run["stack"][i]);
  o.cos = run["cos"][i], o.abs = run["abs"][i], o.rel = run["rel"][i];
  return o;
}

void expect_number(const json& j, const std::optional<double>& v, const std::string& what) {
  SCOPED_TRACE(what);
  if (!v) {
    EXPECT_TRUE(j.is_null()) << j;
  } else if (std::isnan(*v)) {
    EXPECT_EQ(j, "nan");
  } else if (std::isinf(*v)) {
    EXPECT_EQ(j, *v > 0 ? "inf" : "-inf");
  } else {
    ASSERT_TRUE(j.is_number()) << j;
    EXPECT_NEAR(j.get<double>(), *v, std::fabs(*v) * 5e-7);  // 7 significant digits
  }
}
}  // namespace

TEST(HtmlReport, EmbeddedDataDecodesToTheModel) {
  const auto r = sample();
  const json d = embedded(td::report::render_html(r));
  EXPECT_EQ(d["v"], 1);
  EXPECT_EQ(d["npu"], "npu/<dump>");
  EXPECT_EQ(d["mode"], "tensor");
  EXPECT_EQ(d["first"], 0);
  ASSERT_EQ(d["runs"].size(), r.runs.size());
  for (std::size_t k = 0; k < r.runs.size(); ++k) {
    const auto& want = r.runs[k];
    const json& run = d["runs"][k];
    EXPECT_EQ(run["label"], want.label);
    EXPECT_EQ(run["step"], want.step);
    EXPECT_EQ(run["rank"], want.rank);
    ASSERT_EQ(run["st"].get<std::string>().size(), want.rows.size());
    for (std::size_t i = 0; i < want.rows.size(); ++i) {
      SCOPED_TRACE(want.label + " row " + std::to_string(i));
      const auto& w = want.rows[i];
      const Decoded g = decode(d, run, i);
      EXPECT_EQ(g.name, w.name);
      EXPECT_EQ(g.bench, w.bench_name);
      EXPECT_EQ(g.dtype, w.npu_dtype);
      EXPECT_EQ(g.bench_dtype, w.bench_dtype);
      EXPECT_EQ(g.shape, w.npu_shape);
      EXPECT_EQ(g.bench_shape, w.bench_shape);
      EXPECT_EQ(g.status, w.status);
      EXPECT_EQ(g.message, w.message);
      std::string stack;
      if (w.stack)
        for (const auto& line : want.stacks[*w.stack]) stack += line + "\n";
      EXPECT_EQ(g.stack, stack);
      expect_number(g.cos, w.cosine, "cosine");
      expect_number(g.abs, w.max_abs_err, "max abs err");
      expect_number(g.rel, w.max_rel_err, "max rel err");
    }
    const json& nodes = run["nodes"];
    ASSERT_EQ(nodes["name"].size(), want.modules.size());
    for (std::size_t i = 0; i < want.modules.size(); ++i) {
      EXPECT_EQ(d["strings"][nodes["name"][i].get<std::size_t>()], want.modules[i].name);
      EXPECT_EQ(nodes["parent"][i], want.modules[i].parent ? static_cast<long long>(*want.modules[i].parent) : -1);
      EXPECT_EQ(nodes["st"].get<std::string>()[i], want.modules[i].status[0]);
      expect_number(nodes["cos"][i], want.modules[i].min_cosine, "module cosine");
    }
  }
  // a row is tied to the tree by its entry; one without a node keeps its whole name
  EXPECT_EQ(d["runs"][0]["e"], json({0, 2, 1, 0, -1}));
  const json& f = d["runs"][0]["first"];
  EXPECT_EQ(f["row"], 2);
  EXPECT_EQ(f["entry"], "Module.layers.0.mlp.MLP.forward.0");
  EXPECT_EQ(f["messages"].size(), 1u);
  EXPECT_TRUE(d["runs"][1]["first"].is_null());
  EXPECT_EQ(d["strings"][d["runs"][0]["bench_only"][0].get<std::size_t>()], "Torch.only_in_bench.0.forward.output.0");
}

TEST(HtmlReport, StringsAreStoredOnce) {
  auto r = sample();
  const std::string one = td::report::html_data_json(r);
  for (int i = 0; i < 50; ++i) r.runs.push_back(r.runs[0]);  // 50 more ranks with the same names and stacks
  const std::string many = td::report::html_data_json(r);
  const json d = json::parse(many);
  std::set<std::string> distinct;
  for (const auto& s : d["strings"]) distinct.insert(s.get<std::string>());
  EXPECT_EQ(distinct.size(), d["strings"].size());
  EXPECT_EQ(d["strings"].size(), json::parse(one)["strings"].size());
  EXPECT_EQ(count(many, "self.mlp(x)"), 1u);
}

TEST(HtmlReport, StaysOfflineAndEscaped) {
  const std::string html = td::report::render_html(sample());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none';"), std::string::npos);
  // only the data and the script elements close: names cannot end them early
  EXPECT_EQ(count(html, "</script"), 2u);
  EXPECT_EQ(count(html, "<script"), 2u);
  EXPECT_EQ(html.find("alert(1)</script>"), std::string::npos);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_NE(html.find("NPU: npu/&lt;dump&gt;"), std::string::npos);
  for (const char* remote : {"http://", "https://", "//cdn", " src=", "url(", "@import", "fetch(", "XMLHttpRequest"})
    EXPECT_EQ(html.find(remote), std::string::npos) << remote;
}

TEST(HtmlReport, EmptyReportRenders) {
  td::report::HtmlReport r;
  const std::string html = td::report::render_html(r);
  const json d = embedded(html);
  EXPECT_TRUE(d["runs"].empty());
  EXPECT_TRUE(d["first"].is_null());
  EXPECT_NE(html.find("</html>"), std::string::npos);
}

TEST(HtmlReport, OutOfRangeIndicesAreDropped) {
  auto r = sample();
  r.runs[0].rows[1].stack = 99;
  r.runs[0].modules[2].parent = 42;
  r.runs[0].first_divergence_row = 1000;
  r.first_divergence_run = 7;
  json d = json::parse(td::report::html_data_json(r));
  EXPECT_EQ(d["runs"][0]["stack"][1], -1);
  EXPECT_EQ(d["runs"][0]["nodes"]["parent"][2], -1);
  EXPECT_TRUE(d["runs"][0]["first"].is_null());
  EXPECT_TRUE(d["first"].is_null());
  r.first_divergence_run = 0;  // a run without a (valid) first row is not the job's first divergence
  d = json::parse(td::report::html_data_json(r));
  EXPECT_TRUE(d["first"].is_null());
}

// --- the dump adapter: a whole job in one report ------------------------------------------

namespace {
td::match::DumpComparison compare(const std::string& scenario) {
  td::match::CompareRequest req;
  req.npu = kDumps / scenario / "npu";
  req.bench = kDumps / scenario / "bench";
  req.divergence.criterion = td::match::DivergenceOptions::Criterion::any_difference;
  req.divergence.stat_rtol = 1e-5;  // as match_analysis_test: view vs contiguous copy stats
  return td::match::run_compare(req);
}

int severity(const std::string& s) { return s == "error" ? 3 : s == "warning" ? 2 : s == "unmatched" ? 1 : 0; }
}  // namespace

TEST(HtmlDump, EveryRankAndStepInOneReport) {
  for (const char* scenario : {"multirank_fp32_statistics", "multistep_fp32_statistics"}) {
    SCOPED_TRACE(scenario);
    if (!fs::exists(kDumps / scenario)) GTEST_SKIP();
    const auto r = compare(scenario);
    const auto h = td::report::html_report(r, "npu", "bench");
    ASSERT_EQ(h.runs.size(), r.ranks.size());
    ASSERT_EQ(h.runs.size(), 2u);
    EXPECT_EQ(h.mode, "statistics");
    for (std::size_t k = 0; k < r.ranks.size(); ++k) {
      const auto& rc = r.ranks[k];
      EXPECT_EQ(h.runs[k].label, rc.label);
      EXPECT_EQ(h.runs[k].rank, rc.rank);
      EXPECT_EQ(h.runs[k].step, rc.step);
      ASSERT_EQ(h.runs[k].rows.size(), rc.rows.size());
      for (std::size_t i = 0; i < rc.rows.size(); ++i) {
        EXPECT_EQ(h.runs[k].rows[i].name, rc.npu_item(rc.rows[i]).name);
        EXPECT_EQ(h.runs[k].rows[i].entry, rc.npu_item(rc.rows[i]).entry);
        // stacks are shared between rows but each row still gets its own entry's lines
        const auto* lines = rc.npu_dump && rc.npu_dump->stack ? rc.npu_dump->stack->find(rc.npu_item(rc.rows[i]).entry) : nullptr;
        ASSERT_EQ(h.runs[k].rows[i].stack.has_value(), lines != nullptr);
        if (lines) {
          EXPECT_EQ(h.runs[k].stacks[*h.runs[k].rows[i].stack], *lines);
        }
      }
      EXPECT_LE(h.runs[k].stacks.size(), rc.npu_dump && rc.npu_dump->stack ? rc.npu_dump->stack->by_name.size() : 0u);
      ASSERT_EQ(h.runs[k].first_divergence_row.has_value(), r.divergences[k].has_value());
      if (r.divergences[k]) {
        EXPECT_EQ(*h.runs[k].first_divergence_row, r.divergences[k]->failing_rows.front());
        EXPECT_EQ(h.runs[k].first_divergence_name, r.divergences[k]->entry);
        EXPECT_EQ(h.runs[k].first_divergence_origin, r.divergences[k]->origin_module.value_or(""));
      }
    }
    ASSERT_TRUE(r.first_divergence);
    ASSERT_TRUE(h.first_divergence_run);
    EXPECT_EQ(h.runs[*h.first_divergence_run].label, r.first_divergence->label);
    EXPECT_EQ(h.runs[*h.first_divergence_run].step, std::string(scenario).find("multistep") == 0 ? "step1" : "step0");
    EXPECT_EQ(h.runs[*h.first_divergence_run].rank, std::string(scenario).find("multirank") == 0 ? 1 : 0);
  }
}

TEST(HtmlDump, ModuleStatusIsTheWorstRowOfItsSubtree) {
  for (const char* scenario : {"mix_fp32_statistics_dtype_change", "mix_fp32_statistics_api_mismatch", "L0_fp32_statistics_perturbed"}) {
    SCOPED_TRACE(scenario);
    if (!fs::exists(kDumps / scenario)) GTEST_SKIP();
    const auto r = compare(scenario);
    const auto h = td::report::html_report(r, "npu", "bench");
    ASSERT_EQ(h.runs.size(), 1u);
    const auto& run = h.runs[0];
    // independently: walk each row's parent chain (from construct.json) and keep the worst
    std::map<std::string, std::string> parent;
    const auto& construct = r.ranks[0].npu_dump->construct;
    if (construct)
      for (const auto& [node, p] : construct->nodes)
        if (p) parent[node] = *p;
    std::map<std::string, int> worst;
    std::set<std::string> statuses;
    for (const auto& row : run.rows) {
      statuses.insert(row.status);
      std::string at = row.entry;
      for (int guard = 0; !at.empty() && guard < 1000; ++guard) {
        worst[at] = std::max(worst[at], severity(row.status));
        auto p = parent.find(at);
        at = p == parent.end() ? "" : p->second;
      }
    }
    EXPECT_GT(statuses.size(), 1u) << "the scenario should mix statuses";
    ASSERT_FALSE(run.modules.empty());
    for (const auto& m : run.modules) EXPECT_EQ(severity(m.status), worst[m.name]) << m.name;
    for (const auto& m : run.modules) {
      if (m.parent) {
        EXPECT_LE(severity(m.status), severity(run.modules[*m.parent].status)) << m.name;
      }
    }
  }
}

TEST(HtmlDump, OneRankReportKeepsOnlyThatRank) {
  if (!fs::exists(kDumps / "multirank_fp32_statistics")) GTEST_SKIP();
  const auto r = compare("multirank_fp32_statistics");
  const auto h = td::report::html_report(r, 1, "npu", "bench");
  ASSERT_EQ(h.runs.size(), 1u);
  EXPECT_EQ(h.runs[0].rank, 1);
  EXPECT_EQ(h.first_divergence_run, std::optional<std::size_t>(0));
  EXPECT_NE(h.title.find("rank1"), std::string::npos);
}
