// tensordiff — the self-contained HTML report of a whole comparison job.
//
// One offline file for every rank of every step: inline CSS and script, the
// rows embedded once as compact JSON (html_data.hpp), a Content-Security-Policy
// that forbids any network request. The page shows the job's first divergence,
// a rank × step heat-map of the worst result, and for the selected run its
// chart (cosine and max abs error along execution order), module tree and a
// virtualised, sortable, filterable table; see html_script.hpp.
//
//   td::report::HtmlReport r = td::report::html_report(comparison, npu, bench);  // html_dump.hpp
//   td::report::write_html(r, "out/report.html");
//
// The model (html_model.hpp) is neutral: any comparison can fill it.
#pragma once
#include <fstream>
#include <string>

#include "../core/error.hpp"
#include "../io/detail/output_file.hpp"
#include "html_data.hpp"
#include "html_model.hpp"
#include "html_script.hpp"
#include "html_style.hpp"

TD_NAMESPACE_BEGIN
namespace report {

namespace detail {
/// Text for HTML element content and attribute values.
inline std::string escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&#39;"; break;
      default: o += c;
    }
  }
  return o;
}
}  // namespace detail

/// The report as one HTML document.
inline std::string render_html(const HtmlReport& r) {
  using detail::escape;
  std::string s;
  s += "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\n"
       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'unsafe-inline'; "
       "style-src 'unsafe-inline'; img-src data:\">\n"
       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>";
  s += escape(r.title);
  s += "</title>\n<style>";
  s += detail::html_style;
  s += "</style></head><body>\n<header><h1>";
  s += escape(r.title);
  s += "</h1><div class=\"paths\">NPU: " + escape(r.npu_path) + "<br>Bench: " + escape(r.bench_path);
  if (!r.mode.empty()) s += "<br>Mode: " + escape(r.mode);
  s += "</div></header>\n";
  s += R"(<noscript><p>This report draws its tables with JavaScript; the CSV files next to it hold every row.</p></noscript>
<section id="job">
<div id="global-first" class="first-note"></div>
<div class="cards" id="summary"></div>
<div id="heatmap-box"><h2>Worst result by rank and step</h2><table id="heatmap"></table>
<div class="legend-row">cell: failing rows (unmatched rows when none fail); colour: worst result (<span class="st-e">error</span>, <span class="st-w">warning</span>, <span class="st-u">unmatched</span>, <span class="st-p">pass</span>). Click a cell to open that run.</div></div>
</section>
<section id="run">
<h2 id="run-title"></h2>
<div class="cards" id="run-summary"></div>
<p id="first-divergence-note"></p>
<div id="chart-box"><svg id="chart" viewBox="0 0 960 280" role="img" aria-label="cosine and max abs error by row, in execution order"></svg><div id="chart-tip" hidden></div></div>
<div class="panes">
<nav id="tree-pane" aria-label="modules"><h3>Modules</h3><p id="tree-empty" hidden>No module tree (no construct.json or entries).</p><ul class="tree" id="modules" role="tree"></ul></nav>
<div id="table-pane">
<div class="filters"><label>Status <select id="status-filter"><option value="">all</option><option value="fail">error or warning</option><option value="e">error</option><option value="w">warning</option><option value="p">pass</option><option value="u">unmatched</option></select></label>
<label>Name <input id="name-filter" type="search" placeholder="substring"></label>
<span id="subtree-chip" hidden>module <b id="subtree-name"></b> <button id="subtree-clear" title="show every row">×</button></span>
<span id="row-count"></span></div>
<div id="grid" role="grid"><div id="grid-head" role="row"></div><div id="grid-body" role="rowgroup"></div></div>
<div id="detail" hidden></div>
</div></div>
<details id="bench-only-box" hidden><summary>Bench-only items</summary><ul id="bench-only"></ul></details>
</section>
<script type="application/json" id="td-data">)";
  s += html_data_json(r);
  s += "</script>\n<script>(() => {";  // one scope: the page leaves no globals behind
  for (const char* part : {detail::html_script_core, detail::html_script_table, detail::html_script_chart, detail::html_script_page})
    s += part;
  s += "})();</script></body></html>\n";
  return s;
}

/// Writes render_html(r) to `path`.
inline void write_html(const HtmlReport& r, const std::string& path) {
  io::detail::write_output_file(path, [&](std::ostream& os) { os << render_html(r); });
}

}  // namespace report
TD_NAMESPACE_END
