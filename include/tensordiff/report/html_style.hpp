// tensordiff — the HTML report's stylesheet (a raw string, see html_script.hpp).
#pragma once
#include "../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace report {
namespace detail {

inline constexpr const char* html_style = R"css(
[hidden]{display:none!important}
:root{--pass:#2e7d32;--warning:#e08a00;--error:#c62828;--unmatched:#808080;--line:#e3e3e3;--muted:#606060}
body{font:14px/1.4 system-ui,sans-serif;margin:1.2em 1.5em;color:#222}
h1{font-size:1.3em;margin:0 0 .3em} h2{font-size:1.1em;margin:1em 0 .4em} h3{font-size:1em;margin:0 0 .4em}
.paths{color:var(--muted);font-size:.9em;word-break:break-all}
.cards{display:flex;flex-wrap:wrap;gap:.7em;margin:.8em 0} .card{padding:.4em .9em;border-radius:6px;background:#f3f3f3}
.card b{font-size:1.3em;display:block}
.st-p{color:var(--pass)} .st-w{color:var(--warning)} .st-e{color:var(--error)} .st-u{color:var(--unmatched)}
.first-note{margin:.6em 0;padding:.5em .8em;border-left:4px solid var(--error);background:#fff5f5}
.first-note .msgs,#first-divergence-note .msgs{color:var(--muted);font-size:.9em}
#heatmap{border-collapse:separate;border-spacing:3px} #heatmap th{font-weight:normal;color:var(--muted);padding:0 .5em;text-align:center}
button.hm{min-width:4.2em;height:2.2em;border:2px solid transparent;border-radius:4px;color:#fff;font:inherit;cursor:pointer}
button.hm.st-p{background:var(--pass)} button.hm.st-w{background:var(--warning)} button.hm.st-e{background:var(--error)}
button.hm.st-u{background:var(--unmatched)} button.hm.sel{border-color:#111;box-shadow:0 0 0 2px #fff inset}
.legend-row{font-size:.85em;color:var(--muted)}
#chart-box{position:relative;max-width:980px} svg#chart{width:100%;height:auto;background:#fff;cursor:crosshair;display:block}
.plot{fill:#fafafa;stroke:#ccc} .line{fill:none;stroke-width:1.2} .line.cos{stroke:#1565c0} .line.err{stroke:#ef6c00}
.zero{stroke:#ef6c00;stroke-width:2;stroke-opacity:.45} .mark.st-e{fill:var(--error)} .mark.st-w{fill:var(--warning)}
.tick{stroke-width:1.5} .tick.st-e{stroke:var(--error)} .tick.st-w{stroke:var(--warning)} .tick.st-u{stroke:var(--unmatched)}
tspan.st-e{fill:var(--error)} tspan.st-w{fill:var(--warning)} tspan.st-u{fill:var(--unmatched)}
.axis{font-size:10px;fill:#555} .diverge{stroke:var(--error);stroke-dasharray:4 3} .diverge-label{font-size:11px;fill:var(--error)}
.legend{font-size:11px;fill:#444} .legend.cos{fill:#1565c0} .legend.err{fill:#ef6c00}
.span{fill:#1565c0;fill-opacity:.12} .cursor{stroke:#111;stroke-width:1}
#chart-tip{position:absolute;background:#222;color:#fff;font-size:12px;padding:2px 6px;border-radius:3px;pointer-events:none;white-space:nowrap}
.panes{display:flex;gap:1em;align-items:flex-start;margin-top:.6em}
#tree-pane{flex:0 0 30%;max-width:480px;max-height:70vh;overflow:auto;border:1px solid var(--line);border-radius:4px;padding:.5em;position:relative}
#table-pane{flex:1 1 auto;min-width:0}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:1.1em} ul.tree{padding-left:0}
ul.tree li{white-space:nowrap} .tw{border:0;background:none;width:1.3em;padding:0;cursor:pointer;color:#555}
.nm{cursor:pointer;padding:0 .2em;border-radius:3px} .nm:hover{background:#eef4ff} .nm.sel{background:#dbe8ff;outline:1px solid #90b4f0}
.nm.fd{font-weight:bold;text-decoration:underline} .nm.origin::after{content:" ← origin";color:var(--error);font-weight:normal}
.mm{color:var(--muted);font-size:.8em;margin-left:.5em} li.more button{font-size:.85em}
.filters{margin:0 0 .5em;display:flex;flex-wrap:wrap;gap:1em;align-items:center}
#subtree-chip{background:#dbe8ff;border-radius:12px;padding:1px 4px 1px 10px} #subtree-chip button{border:0;background:none;cursor:pointer}
#row-count{color:var(--muted)}
#grid{height:60vh;overflow:auto;border:1px solid var(--line);border-radius:4px;font-size:12.5px}
#grid-head,#grid-body .r{display:grid;grid-template-columns:64px minmax(300px,2fr) minmax(90px,1.2fr) 150px 130px 96px 96px 96px 80px minmax(260px,2fr);min-width:1360px}
#grid-head{position:sticky;top:0;z-index:1;background:#f7f7f7;border-bottom:1px solid #ccc;font-weight:600}
#grid-head .c{cursor:pointer;user-select:none} #grid-head .c[aria-sort=ascending]::after{content:" ▲"} #grid-head .c[aria-sort=descending]::after{content:" ▼"}
#grid-body{position:relative;min-width:1360px}
#grid-body .r{position:absolute;left:0;right:0;height:22px;box-sizing:border-box;border-bottom:1px solid #eee;cursor:pointer}
.c{padding:2px 6px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;line-height:17px}
.c.num{text-align:right;font-variant-numeric:tabular-nums}
#grid-body .r:hover{background:#f0f6ff} #grid-body .r.first{background:#fff0f0} #grid-body .r.sel{background:#dbe8ff}
#detail{margin-top:.6em;border:1px solid var(--line);border-radius:4px;padding:.5em .8em;background:#fcfcfc}
#detail dl{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:0} #detail dt{color:var(--muted)} #detail dd{margin:0;word-break:break-all}
pre.stack{white-space:pre-wrap;font-size:12px;margin:.5em 0 0}
@media (max-width:900px){.panes{flex-direction:column}#tree-pane{max-width:none;width:100%;box-sizing:border-box}}
)css";

}  // namespace detail
}  // namespace report
TD_NAMESPACE_END
