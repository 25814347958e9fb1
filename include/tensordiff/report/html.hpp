// tensordiff — the self-contained HTML report of a dump comparison.
//
// One file, inline CSS/JS/SVG, no network: summary counts, a chart of cosine
// and max abs error (log scale) along execution order with the first
// divergence marked (each point links to its row), the table sortable and
// filterable by status and name, a row's stack on click, and the module
// roll-up as a collapsible tree. The writer takes a neutral model so any
// comparison (dump, plain folders, steps) can fill it.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "../core/error.hpp"

TD_NAMESPACE_BEGIN
namespace report {

/// One table row of the report.
struct HtmlRow {
  std::string name;        ///< NPU item name
  std::string bench_name;  ///< matched bench item ("" when unmatched)
  std::string status;      ///< "pass", "warning", "error" or "unmatched"
  std::string npu_dtype, bench_dtype, npu_shape, bench_shape;
  std::optional<double> cosine, max_abs_err, max_rel_err;
  std::string message;
  std::vector<std::string> stack;
};

/// A module (or API) in the roll-up tree, with its worst metrics.
struct HtmlModule {
  std::string name;
  std::optional<double> min_cosine, max_abs_err;
  std::string status;
  std::vector<HtmlModule> children;
};

struct HtmlReport {
  std::string title = "tensordiff compare";
  std::string npu_path, bench_path, mode;
  std::vector<HtmlRow> rows;
  std::optional<std::size_t> first_divergence_row;  ///< index into rows
  std::string first_divergence_name;
  std::vector<HtmlModule> modules;
  std::vector<std::string> bench_only;  ///< bench items no NPU item matched
};

namespace detail {
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

inline std::string num(const std::optional<double>& v, int digits = 6) {
  if (!v) return "";
  if (std::isnan(*v)) return "nan";
  if (std::isinf(*v)) return *v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", digits, *v);
  return buf;
}

/// Sort key for a numeric cell: empty sorts first.
inline std::string sort_key(const std::optional<double>& v) {
  return v && std::isfinite(*v) ? num(v, 17) : (v ? (std::isnan(*v) ? "1e309" : num(v)) : "-1e309");
}

/// Two polylines over execution order: cosine (linear, 0..1, left axis) and
/// max abs error (log10, right axis); a red rule at the first divergence.
inline std::string chart_svg(const HtmlReport& r) {
  const double w = 960, h = 260, l = 70, rgt = 60, top = 16, bot = 30;
  const std::size_t n = r.rows.size();
  std::ostringstream s;
  s << "<svg id=\"chart\" viewBox=\"0 0 " << w << ' ' << h << "\" role=\"img\" aria-label=\"cosine and max abs error by row\">";
  s << "<rect x=\"" << l << "\" y=\"" << top << "\" width=\"" << w - l - rgt << "\" height=\"" << h - top - bot
    << "\" class=\"plot\"/>";
  if (n == 0) return s.str() + "</svg>";
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& row : r.rows)
    if (row.max_abs_err && *row.max_abs_err > 0 && std::isfinite(*row.max_abs_err)) {
      const double e = std::log10(*row.max_abs_err);
      lo = any ? std::min(lo, e) : e;
      hi = any ? std::max(hi, e) : e;
      any = true;
    }
  lo = std::floor(lo), hi = std::max(std::ceil(hi), lo + 1);
  auto x = [&](std::size_t i) { return l + (w - l - rgt) * (n == 1 ? 0.5 : double(i) / double(n - 1)); };
  // The cosine axis spans [lowest cosine, 1] (padded) so drift of 1e-5 shows.
  double cos_lo = 1;
  for (const auto& row : r.rows)
    if (row.cosine && std::isfinite(*row.cosine)) cos_lo = std::min(cos_lo, *row.cosine);
  cos_lo = std::max(-1.0, cos_lo - std::max(1 - cos_lo, 1e-9) * 0.1);
  auto y_cos = [&](double c) { return top + (h - top - bot) * (1 - (std::clamp(c, cos_lo, 1.0) - cos_lo) / (1 - cos_lo)); };
  auto y_err = [&](double e) { return top + (h - top - bot) * (1 - (std::log10(e) - lo) / (hi - lo)); };
  for (int t = 0; t <= 4; ++t) {  // axes labels
    const double c = cos_lo + (1 - cos_lo) * t / 4.0;
    s << "<text x=\"" << l - 6 << "\" y=\"" << y_cos(c) + 4 << "\" class=\"axis cos\" text-anchor=\"end\">"
      << num(c, 7) << "</text>";
  }
  for (double e = lo; e <= hi; e += std::max(1.0, std::floor((hi - lo) / 4)))
    s << "<text x=\"" << w - rgt + 6 << "\" y=\"" << y_err(std::pow(10, e)) + 4 << "\" class=\"axis err\">1e" << e
      << "</text>";
  if (r.first_divergence_row) {
    const double fx = x(*r.first_divergence_row);
    s << "<line id=\"first-divergence\" x1=\"" << fx << "\" x2=\"" << fx << "\" y1=\"" << top << "\" y2=\""
      << h - bot << "\" class=\"diverge\"/><text x=\"" << fx + 4 << "\" y=\"" << top + 12
      << "\" class=\"diverge-label\">first divergence: " << escape(r.first_divergence_name) << "</text>";
  }
  std::string cos_pts, err_pts;
  std::ostringstream dots;
  for (std::size_t i = 0; i < n; ++i) {
    const auto& row = r.rows[i];
    char buf[64];
    if (row.cosine && std::isfinite(*row.cosine)) {
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", x(i), y_cos(*row.cosine));
      cos_pts += buf;
      dots << "<a href=\"#row-" << i << "\"><circle class=\"pt cos\" cx=\"" << x(i) << "\" cy=\"" << y_cos(*row.cosine)
           << "\" r=\"2.5\"><title>" << escape(row.name) << " cosine " << num(row.cosine) << "</title></circle></a>";
    }
    if (row.max_abs_err && *row.max_abs_err > 0 && std::isfinite(*row.max_abs_err)) {
      std::snprintf(buf, sizeof buf, "%.1f,%.1f ", x(i), y_err(*row.max_abs_err));
      err_pts += buf;
      dots << "<a href=\"#row-" << i << "\"><circle class=\"pt err\" cx=\"" << x(i) << "\" cy=\""
           << y_err(*row.max_abs_err) << "\" r=\"2.5\"><title>" << escape(row.name) << " max abs err "
           << num(row.max_abs_err) << "</title></circle></a>";
    }
  }
  s << "<polyline class=\"line cos\" points=\"" << cos_pts << "\"/><polyline class=\"line err\" points=\"" << err_pts
    << "\"/>" << dots.str();
  s << "<text x=\"" << l << "\" y=\"" << h - 8 << "\" class=\"legend cos\">— cosine (left)</text><text x=\"" << l + 150
    << "\" y=\"" << h - 8 << "\" class=\"legend err\">— max abs error, log scale (right)</text></svg>";
  return s.str();
}

inline void module_tree(std::ostringstream& s, const HtmlModule& m) {
  s << "<li><details" << (m.status == "error" || m.status == "warning" ? " open" : "") << "><summary class=\"st-"
    << escape(m.status) << "\">" << escape(m.name) << " <span class=\"mm\">min cos " << num(m.min_cosine)
    << ", max abs err " << num(m.max_abs_err) << "</span></summary>";
  if (!m.children.empty()) {
    s << "<ul>";
    for (const auto& c : m.children) module_tree(s, c);
    s << "</ul>";
  }
  s << "</details></li>";
}
}  // namespace detail

/// The report as one HTML document.
inline std::string render_html(const HtmlReport& r) {
  using detail::escape;
  std::map<std::string, std::size_t> counts;
  for (const auto& row : r.rows) ++counts[row.status];
  std::ostringstream s;
  s << R"(<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>)" << escape(r.title) << R"(</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em;margin:0 0 .3em} .paths{color:#555;font-size:.9em}
.cards{display:flex;gap:1em;margin:1em 0} .card{padding:.5em 1em;border-radius:6px;background:#f3f3f3}
.card b{font-size:1.4em;display:block} .st-pass{color:#17803d} .st-warning{color:#b26a00} .st-error{color:#c62828} .st-unmatched{color:#666}
svg{width:100%;max-width:980px;height:auto;background:#fff} .plot{fill:#fafafa;stroke:#ccc}
.line{fill:none;stroke-width:1.2} .line.cos,.pt.cos{stroke:#1565c0;fill:#1565c0} .line.err,.pt.err{stroke:#ef6c00;fill:#ef6c00}
.line.cos,.line.err{fill:none} .axis{font-size:10px;fill:#555} .diverge{stroke:#c62828;stroke-dasharray:4 3} .diverge-label{font-size:11px;fill:#c62828}
.legend{font-size:11px} .legend.cos{fill:#1565c0} .legend.err{fill:#ef6c00}
table{border-collapse:collapse;width:100%;font-size:12.5px} th,td{border-bottom:1px solid #e5e5e5;padding:3px 6px;text-align:left;white-space:nowrap}
th{cursor:pointer;background:#f7f7f7;position:sticky;top:0} tr.data:hover{background:#f0f6ff} tr.first td{background:#fff0f0}
td.num{text-align:right;font-variant-numeric:tabular-nums} tr.stack td{white-space:pre-wrap;font:12px monospace;background:#fbfbfb}
.filters{margin:.8em 0;display:flex;gap:1em;align-items:center} ul.tree{list-style:none;padding-left:1em} ul.tree ul{list-style:none;padding-left:1.2em}
.mm{color:#666;font-size:.85em}
</style></head><body>
)";
  s << "<h1>" << escape(r.title) << "</h1><div class=\"paths\">NPU: " << escape(r.npu_path)
    << "<br>Bench: " << escape(r.bench_path) << (r.mode.empty() ? "" : "<br>Mode: " + escape(r.mode)) << "</div>";
  s << "<div class=\"cards\" id=\"summary\"><div class=\"card\"><b>" << r.rows.size() << "</b>rows</div>";
  for (const char* st : {"pass", "warning", "error", "unmatched"})
    s << "<div class=\"card st-" << st << "\"><b>" << counts[st] << "</b>" << st << "</div>";
  s << "<div class=\"card\"><b>" << r.bench_only.size() << "</b>bench only</div></div>";
  if (r.first_divergence_row)
    s << "<p id=\"first-divergence-note\">First divergence: <a href=\"#row-" << *r.first_divergence_row << "\">"
      << escape(r.first_divergence_name) << "</a></p>";
  else
    s << "<p id=\"first-divergence-note\">No divergence found.</p>";
  s << detail::chart_svg(r);
  s << R"(<div class="filters"><label>Status <select id="status-filter"><option value="">all</option><option>pass</option><option>warning</option><option>error</option><option>unmatched</option></select></label><label>Name <input id="name-filter" type="search" placeholder="substring"></label></div>)";
  s << "<table id=\"rows\"><thead><tr><th data-k=\"0\">#</th><th>NPU name</th><th>Bench name</th><th>Dtype</th><th>Shape</th>"
       "<th data-num=\"1\">Cosine</th><th data-num=\"1\">MaxAbsErr</th><th data-num=\"1\">MaxRelErr</th><th>Result</th><th>Message</th></tr></thead><tbody>";
  for (std::size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    const bool first = r.first_divergence_row && *r.first_divergence_row == i;
    s << "<tr class=\"data" << (first ? " first" : "") << "\" id=\"row-" << i << "\" data-status=\"" << escape(row.status)
      << "\" data-name=\"" << escape(row.name) << "\"><td class=\"num\" data-v=\"" << i << "\">" << i << "</td><td>"
      << escape(row.name) << "</td><td>" << escape(row.bench_name) << "</td><td>" << escape(row.npu_dtype)
      << (row.bench_dtype != row.npu_dtype ? " / " + escape(row.bench_dtype) : "") << "</td><td>"
      << escape(row.npu_shape) << "</td><td class=\"num\" data-v=\"" << detail::sort_key(row.cosine) << "\">"
      << detail::num(row.cosine) << "</td><td class=\"num\" data-v=\"" << detail::sort_key(row.max_abs_err) << "\">"
      << detail::num(row.max_abs_err) << "</td><td class=\"num\" data-v=\"" << detail::sort_key(row.max_rel_err)
      << "\">" << detail::num(row.max_rel_err) << "</td><td class=\"st-" << escape(row.status) << "\">"
      << escape(row.status) << "</td><td>" << escape(row.message) << "</td></tr>";
    std::string stack;
    for (const auto& line : row.stack) stack += line + "\n";
    s << "<tr class=\"stack\" hidden><td colspan=\"10\">" << (stack.empty() ? "(no stack recorded)" : escape(stack))
      << "</td></tr>";
  }
  s << "</tbody></table>";
  if (!r.bench_only.empty()) {
    s << "<h2>Bench-only items</h2><ul id=\"bench-only\">";
    for (const auto& b : r.bench_only) s << "<li>" << escape(b) << "</li>";
    s << "</ul>";
  }
  s << "<h2>Modules</h2><ul class=\"tree\" id=\"modules\">";
  for (const auto& m : r.modules) detail::module_tree(s, m);
  s << "</ul>";
  s << R"(<script>
(function(){
  var body=document.querySelector('#rows tbody');
  function pairs(){var r=[],t=body.rows;for(var i=0;i<t.length;i+=2)r.push([t[i],t[i+1]]);return r;}
  function filter(){var st=document.getElementById('status-filter').value,q=document.getElementById('name-filter').value.toLowerCase();
    pairs().forEach(function(p){var ok=(!st||p[0].dataset.status===st)&&(!q||p[0].dataset.name.toLowerCase().indexOf(q)>=0);
      p[0].hidden=!ok;if(!ok)p[1].hidden=true;});}
  document.getElementById('status-filter').onchange=filter;document.getElementById('name-filter').oninput=filter;
  body.addEventListener('click',function(e){var tr=e.target.closest('tr.data');if(tr)tr.nextElementSibling.hidden=!tr.nextElementSibling.hidden;});
  document.querySelectorAll('#rows th').forEach(function(th,col){var asc=true;th.onclick=function(){
    var num=th.dataset.num||col===0;var ps=pairs();ps.sort(function(a,b){var x=a[0].cells[col],y=b[0].cells[col];
      var u=num?parseFloat(x.dataset.v):x.textContent,v=num?parseFloat(y.dataset.v):y.textContent;return (u<v?-1:u>v?1:0)*(asc?1:-1);});
    asc=!asc;ps.forEach(function(p){body.appendChild(p[0]);body.appendChild(p[1]);});};});
})();
</script></body></html>
)";
  return s.str();
}

/// Writes render_html(r) to `path`.
inline void write_html(const HtmlReport& r, const std::string& path) {
  std::ofstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorCategory::io, "cannot open for writing", {path, "", std::nullopt});
  f << render_html(r);
  if (!f) throw Error(ErrorCategory::io, "write failed", {path, "", std::nullopt});
}

}  // namespace report
TD_NAMESPACE_END
