// Structure of the HTML report: the parts a reader relies on are present,
// linked and escaped.
#include <gtest/gtest.h>

#include <regex>
#include <tensordiff/report/html.hpp>

namespace td = tensordiff;

namespace {
td::report::HtmlReport sample() {
  td::report::HtmlReport r;
  r.npu_path = "npu/dump.json";
  r.bench_path = "bench/dump.json";
  for (int i = 0; i < 6; ++i) {
    td::report::HtmlRow row;
    row.name = "Module.layers." + std::to_string(i) + ".Linear.forward.0.output.0";
    row.bench_name = row.name;
    row.status = i < 3 ? "pass" : "error";
    row.cosine = i < 3 ? 1.0 : 0.5;
    row.max_abs_err = i < 3 ? 1e-7 : 0.3;
    row.stack = {"File model.py, line " + std::to_string(10 + i) + ", in forward"};
    r.rows.push_back(row);
  }
  r.rows[1].name = "<script>alert(1)</script>";
  r.first_divergence_row = 3;
  r.first_divergence_name = "Module.layers.3.Linear.forward.0";
  r.modules.push_back({"Module.layers", 0.5, 0.3, "error", {{"Module.layers.3", 0.5, 0.3, "error", {}}}});
  r.bench_only = {"Torch.only_in_bench.0.forward.output.0"};
  return r;
}

std::size_t count(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}
}  // namespace

TEST(HtmlReport, HasChartTableTreeAndSummary) {
  const auto r = sample();
  const std::string html = td::report::render_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<svg id=\"chart\""), std::string::npos);
  EXPECT_EQ(count(html, "<polyline"), 2u);
  EXPECT_EQ(count(html, "<tr class=\"data"), r.rows.size());
  EXPECT_EQ(count(html, "<tr class=\"stack\" hidden>"), r.rows.size());
  EXPECT_NE(html.find("id=\"first-divergence\""), std::string::npos);
  EXPECT_NE(html.find("<tr class=\"data first\" id=\"row-3\""), std::string::npos);
  EXPECT_NE(html.find("id=\"status-filter\""), std::string::npos);
  EXPECT_NE(html.find("<details open><summary class=\"st-error\">Module.layers "), std::string::npos);
  EXPECT_NE(html.find("Torch.only_in_bench.0.forward.output.0"), std::string::npos);
  // every chart point links to an existing row
  std::regex link("href=\"#row-([0-9]+)\"");
  std::size_t links = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), link); it != std::sregex_iterator(); ++it, ++links)
    EXPECT_LT(std::stoul((*it)[1]), r.rows.size());
  EXPECT_GE(links, 2 * r.rows.size());
}

TEST(HtmlReport, EscapesNamesAndNeedsNoNetwork) {
  const std::string html = td::report::render_html(sample());
  EXPECT_EQ(html.find("<script>alert(1)</script>"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
}

TEST(HtmlReport, CountsStatuses) {
  const std::string html = td::report::render_html(sample());
  EXPECT_NE(html.find("<div class=\"card st-pass\"><b>3</b>pass</div>"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"card st-error\"><b>3</b>error</div>"), std::string::npos);
}

TEST(HtmlReport, EmptyReportRenders) {
  td::report::HtmlReport r;
  const std::string html = td::report::render_html(r);
  EXPECT_NE(html.find("No divergence found."), std::string::npos);
  EXPECT_NE(html.find("</html>"), std::string::npos);
}
