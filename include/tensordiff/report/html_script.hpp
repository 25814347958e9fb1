// tensordiff — the HTML report's script (plain ES2017, no library, no network).
//
// It reads the JSON of html_data.hpp from <script id="td-data"> and draws the
// page: job summary, rank × step heat-map (click a cell to open that run),
// the run's chart (downsampled to one column per pixel, keeping each column's
// extremes and every failing row), its module tree and a virtualised table
// (only the visible rows are in the DOM). Tree, table and chart follow one
// another: a module filters the table to its subtree and shades its span in
// the chart; a chart column scrolls the table to its row.
//
// Kept as raw strings (each below MSVC's 16 KB literal limit) so the library
// stays header-only; the parts are concatenated in order.
#pragma once
#include "../core/config.hpp"

TD_NAMESPACE_BEGIN
namespace report {
namespace detail {

// --- state, data access, formatting ----------------------------------------------------
inline constexpr const char* html_script_core = R"js(
'use strict';
const D = JSON.parse(document.getElementById('td-data').textContent);
const S = D.strings;
const $ = (id) => document.getElementById(id);
const ROW_H = 22;  // px; every table row has this height, so the table can be virtual
const TREE_CAP = 500;  // children shown before a "show more" button
const STATUS = { p: 'pass', w: 'warning', e: 'error', u: 'unmatched' };
const SEVERITY = { p: 0, u: 1, w: 2, e: 3 };
const STATS = D.mode === 'statistics';
const ABS_LABEL = STATS ? '|Max diff|' : 'MaxAbsErr', REL_LABEL = STATS ? 'NormRelErr' : 'MaxRelErr';

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function esc(s) {
  return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
}
function val(v) { return v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : v; }
function fmt(v) {
  if (v === null || v === undefined) return '';
  if (Number.isNaN(v)) return 'nan';
  if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
  return String(v);
}
function count(n, word) { return n.toLocaleString('en-US') + ' ' + word + (n === 1 ? '' : 's'); }
function worst(st) { return st.includes('e') ? 'e' : st.includes('w') ? 'w' : st.includes('u') ? 'u' : 'p'; }
function failing(s) { return s === 'e' || s === 'w'; }

const state = { run: null, view: [], sortKey: 'idx', sortDir: 1, subtree: -1, subtreeRows: null, selected: -1, top: -1 };
const prepared = [];

/// Per-run arrays decoded once, on first selection.
function prepare(k) {
  if (prepared[k]) return prepared[k];
  const R = D.runs[k], N = R.nodes, nn = N.name.length;
  const run = { k, R, n: R.st.length, cos: R.cos.map(val), abs: R.abs.map(val), rel: R.rel.map(val),
    nodeCos: N.cos.map(val), nodeAbs: N.abs.map(val), children: new Array(nn).fill(null), roots: [],
    nodeByName: new Map(), names: null, lower: null, counts: { p: 0, w: 0, e: 0, u: 0 } };
  for (let i = 0; i < nn; ++i) {
    run.nodeByName.set(S[N.name[i]], i);
    const p = N.parent[i];
    if (p < 0 || p >= nn) run.roots.push(i);
    else (run.children[p] || (run.children[p] = [])).push(i);
  }
  for (let i = 0; i < run.n; ++i) run.counts[R.st[i]]++;
  prepared[k] = run;
  return run;
}
function rowName(run, i) {
  const e = run.R.e[i];
  return e < 0 ? S[run.R.sfx[i]] : S[run.R.nodes.name[e]] + S[run.R.sfx[i]];
}
function lowerNames(run) {
  if (!run.lower) {
    run.lower = new Array(run.n);
    for (let i = 0; i < run.n; ++i) run.lower[i] = rowName(run, i).toLowerCase();
  }
  return run.lower;
}
function other(code, same) { return code === 0 ? same : code < 0 ? '' : S[code - 1]; }
function pair(a, code) {  // "float32" or "bfloat16 / float32"
  const b = other(code, a);
  return code === 0 ? a : a + ' / ' + (b || '—');
}

const COLS = [
  { key: 'idx', label: '#', cls: 'num' },
  { key: 'name', label: 'NPU name' },
  { key: 'bench', label: 'Bench name' },
  { key: 'dtype', label: 'Dtype' },
  { key: 'shape', label: 'Shape' },
  { key: 'cos', label: 'Cosine', cls: 'num' },
  { key: 'abs', label: ABS_LABEL, cls: 'num' },
  { key: 'rel', label: REL_LABEL, cls: 'num' },
  { key: 'st', label: 'Result' },
  { key: 'msg', label: 'Message' },
];
function cellText(run, i, key) {
  const R = run.R;
  switch (key) {
    case 'idx': return String(i);
    case 'name': return rowName(run, i);
    case 'bench': return R.bench[i] === 0 ? '=' : other(R.bench[i], '');
    case 'dtype': return pair(S[R.dt[i]], R.bdt[i]);
    case 'shape': return pair(S[R.shape[i]], R.bshape[i]);
    case 'cos': case 'abs': case 'rel': return fmt(run[key][i]);
    case 'st': return STATUS[R.st[i]];
    case 'msg': return R.msg[i] < 0 ? '' : S[R.msg[i]];
  }
  return '';
}
)js";

// --- the virtual table: filter, sort, render the visible rows, row details -------------
inline constexpr const char* html_script_table = R"js(
function compareNumbers(a, b, dir) {
  // missing values, then nan, sort last in both directions
  const ra = a === null ? 2 : Number.isNaN(a) ? 1 : 0, rb = b === null ? 2 : Number.isNaN(b) ? 1 : 0;
  if (ra !== rb) return ra - rb;
  if (ra) return 0;
  return a < b ? -dir : a > b ? dir : 0;
}
function sortView(run, view) {
  const key = state.sortKey, dir = state.sortDir;
  if (key === 'idx') { if (dir < 0) view.reverse(); return; }
  if (key === 'cos' || key === 'abs' || key === 'rel') {
    const a = run[key];
    view.sort((x, y) => compareNumbers(a[x], a[y], dir) || x - y);
  } else if (key === 'st') {
    const st = run.R.st;
    view.sort((x, y) => (SEVERITY[st[x]] - SEVERITY[st[y]]) * dir || x - y);
  } else {
    const text = new Map();
    for (const i of view) text.set(i, cellText(run, i, key));
    view.sort((x, y) => { const a = text.get(x), b = text.get(y); return a < b ? -dir : a > b ? dir : x - y; });
  }
}
/// Rows that pass the status, name and module filters, in the chosen order.
function applyView(keepScroll) {
  const run = state.run, st = run.R.st;
  const f = $('status-filter').value, q = $('name-filter').value.trim().toLowerCase();
  const mark = state.subtreeRows, lower = q ? lowerNames(run) : null;
  const view = [];
  for (let i = 0; i < run.n; ++i) {
    const s = st[i];
    if (f && (f === 'fail' ? !failing(s) : s !== f)) continue;
    if (mark && !mark[i]) continue;
    if (lower && !lower[i].includes(q)) continue;
    view.push(i);
  }
  sortView(run, view);
  state.view = view;
  $('grid-body').style.height = view.length * ROW_H + 'px';
  $('row-count').textContent = view.length === run.n ? count(run.n, 'row')
                                                    : view.length.toLocaleString('en-US') + ' of ' + count(run.n, 'row');
  if (!keepScroll) $('grid').scrollTop = 0;
  renderRows(true);
}
function rowElement(run, i, p) {
  const r = el('div', 'r');
  r.setAttribute('role', 'row');
  r.dataset.row = i;
  r.style.top = p * ROW_H + 'px';
  if (run.R.first && run.R.first.row === i) r.classList.add('first');
  if (state.selected === i) r.classList.add('sel');
  for (const c of COLS) {
    const t = cellText(run, i, c.key);
    const d = el('div', 'c c-' + c.key + (c.cls ? ' ' + c.cls : '') + (c.key === 'st' ? ' st-' + run.R.st[i] : ''), t);
    d.setAttribute('role', 'gridcell');
    if (t.length > 12) d.title = t;
    r.appendChild(d);
  }
  return r;
}
/// Puts the rows in (and a little around) the viewport into the DOM.
function renderRows(force) {
  const g = $('grid');
  const first = Math.max(0, Math.floor(g.scrollTop / ROW_H) - 8);
  if (!force && first === state.top) return;
  state.top = first;
  const last = Math.min(state.view.length, first + Math.ceil(g.clientHeight / ROW_H) + 16);
  const frag = document.createDocumentFragment();
  for (let p = first; p < last; ++p) frag.appendChild(rowElement(state.run, state.view[p], p));
  $('grid-body').replaceChildren(frag);
}
function selectRow(i) {
  state.selected = i;
  for (const r of $('grid-body').children) r.classList.toggle('sel', +r.dataset.row === i);
  showDetail(i);
  markChartRow(i);
}
/// Scrolls the table to row i (clearing filters that hide it) and selects it.
function scrollToRow(i) {
  let p = state.view.indexOf(i);
  if (p < 0) {
    $('status-filter').value = '';
    $('name-filter').value = '';
    clearSubtree(false);
    applyView(true);
    p = state.view.indexOf(i);
  }
  const g = $('grid'), head = $('grid-head').offsetHeight;
  g.scrollTop = Math.max(0, head + p * ROW_H - (g.clientHeight - head) / 2);
  renderRows(true);
  selectRow(i);
}
function showDetail(i) {
  const d = $('detail');
  d.replaceChildren();
  d.hidden = i < 0;
  if (i < 0) return;
  const run = state.run, R = run.R;
  const dl = el('dl');
  const add = (k, v) => { if (v !== '') { dl.append(el('dt', '', k), el('dd', '', v)); } };
  add('Row', String(i));
  add('NPU name', rowName(run, i));
  add('Bench name', R.bench[i] === 0 ? rowName(run, i) : other(R.bench[i], '') || '(no bench item matched)');
  add('Entry', R.e[i] < 0 ? '' : S[R.nodes.name[R.e[i]]]);
  add('Dtype', cellText(run, i, 'dtype'));
  add('Shape', cellText(run, i, 'shape'));
  add('Cosine', fmt(run.cos[i]));
  add(ABS_LABEL, fmt(run.abs[i]));
  add(REL_LABEL, fmt(run.rel[i]));
  add('Result', STATUS[R.st[i]]);
  add('Message', cellText(run, i, 'msg'));
  d.append(dl, el('pre', 'stack', R.stack[i] < 0 ? '(no stack recorded)' : S[R.stack[i]]));
}
function sortBy(key) {
  state.sortDir = state.sortKey === key ? -state.sortDir : 1;
  state.sortKey = key;
  for (const h of $('grid-head').children)
    h.setAttribute('aria-sort', h.dataset.key !== key ? 'none' : state.sortDir > 0 ? 'ascending' : 'descending');
  applyView();
}
)js";

// --- the chart: one column per pixel, extremes and failing rows kept ------------------
inline constexpr const char* html_script_chart = R"js(
const CW = 960, CH = 280, CL = 70, CR = 62, CT = 18, CB = 52, PW = CW - CL - CR, PH = CH - CT - CB;
const chart = { cols: 0, start: null, x: null, pick: null };

function drawChart(run) {
  const n = run.n, st = run.R.st;
  const cols = Math.max(1, Math.min(PW, n));
  const bucket = (i) => n <= 1 ? 0 : Math.floor(i * cols / n);
  const x = (b) => CL + (cols === 1 ? PW / 2 : b * PW / (cols - 1));
  const start = new Int32Array(cols + 1);
  for (let i = 0, b = 0; i <= n; ++i) while (b <= cols && (i === n || bucket(i) >= b)) start[b++] = i;
  // axes: cosine over [lowest, 1], error over whole decades (log10)
  let cosLo = 1, hasCos = false, lo = Infinity, hi = -Infinity, hasZero = false;
  for (let i = 0; i < n; ++i) {
    const c = run.cos[i], a = run.abs[i];
    if (c !== null && Number.isFinite(c)) { cosLo = Math.min(cosLo, c); hasCos = true; }
    if (a !== null && Number.isFinite(a)) {
      hasZero = hasZero || a === 0;
      if (a > 0) { const e = Math.log10(a); lo = Math.min(lo, e); hi = Math.max(hi, e); }
    }
  }
  const hasErr = lo <= hi || hasZero;
  lo = lo <= hi ? Math.floor(lo) : -8;
  hi = lo <= hi ? Math.max(Math.ceil(hi), lo + 1) : lo + 1;
  cosLo = Math.max(-1, cosLo - Math.max(1 - cosLo, 1e-9) * 0.1);
  const yCos = (c) => CT + PH * (1 - (Math.min(1, Math.max(cosLo, c)) - cosLo) / (1 - cosLo));
  // the log axis spans PH - ZERO; an error of exactly 0 (identical sides) is marked on the floor below it
  const ZERO = 10, yErr = (a) => a > 0 ? CT + (PH - ZERO) * (1 - (Math.log10(a) - lo) / (hi - lo)) : CT + PH - 1;
  const GAP = 12;  // a line bridges columns without a value up to this width, and breaks beyond it
  const cosPath = [], errPath = [], zeroPath = [], marks = { e: new Set(), w: new Set() }, ticks = { e: [], w: [], u: [] };
  cosPath.last = errPath.last = -Infinity;
  const pick = new Int32Array(cols);  // the row a click on the column opens
  const hot = new Uint8Array(cols);  // the column holds a failing row
  for (let b = 0; b < cols; ++b) {
    let cmin = Infinity, cmax = -Infinity, emin = Infinity, emax = -Infinity, zero = false, tick = '', best = -1, bestErr = -1;
    for (let i = start[b]; i < start[b + 1]; ++i) {
      const c = run.cos[i], a = run.abs[i], s = st[i];
      const okC = c !== null && Number.isFinite(c), okE = a !== null && Number.isFinite(a);
      if (okC) { cmin = Math.min(cmin, c); cmax = Math.max(cmax, c); }
      if (okE && a > 0) { emin = Math.min(emin, a); emax = Math.max(emax, a); }
      if (okE && a === 0) zero = true;
      if (s !== 'p' && (!tick || SEVERITY[s] > SEVERITY[tick])) tick = s;
      if (failing(s)) {
        if (okC) marks[s].add(Math.round(x(b)) + ',' + Math.round(yCos(c)));
        if (okE) marks[s].add(Math.round(x(b)) + ',' + Math.round(yErr(a)));
        if (best < 0 || !failing(st[best])) best = i;
      } else if (best < 0 || !failing(st[best])) {
        const score = okE ? a : okC ? 1 - c : -1;
        if (best < 0 || score > bestErr) { best = i; bestErr = score; }
      }
    }
    pick[b] = best < 0 ? start[b] : best;
    hot[b] = best >= 0 && failing(st[best]) ? 1 : 0;
    const xb = x(b).toFixed(1);
    // each column draws its range (min to max); zeros go on the floor
    const seg = (path, y0, y1) => {
      path.push((x(b) - path.last > GAP ? 'M' : 'L') + xb + ',' + y0.toFixed(1) + 'L' + xb + ',' + y1.toFixed(1));
      path.last = x(b);
    };
    if (cmin <= cmax) seg(cosPath, yCos(cmax), yCos(cmin));
    if (emin <= emax) seg(errPath, yErr(emin), yErr(emax));
    if (zero) zeroPath.push('M' + (x(b) - 0.5).toFixed(1) + ',' + (CT + PH - 1) + 'h1');
    if (tick) ticks[tick].push(xb);
  }
  const s = [`<rect x="${CL}" y="${CT}" width="${PW}" height="${PH}" class="plot"/><g id="chart-span"></g>`];
  if (hasCos)
    for (let t = 0; t <= 4; ++t) {
      const c = cosLo + (1 - cosLo) * t / 4;
      s.push(`<text x="${CL - 6}" y="${(yCos(c) + 4).toFixed(1)}" class="axis cos" text-anchor="end">${+c.toPrecision(7)}</text>`);
    }
  if (hasErr) {
    for (let e = lo; e <= hi; e += Math.max(1, Math.floor((hi - lo) / 4)))
      s.push(`<text x="${CW - CR + 6}" y="${(yErr(Math.pow(10, e)) + 4).toFixed(1)}" class="axis err">1e${e}</text>`);
    s.push(`<text x="${CW - CR + 6}" y="${CT + PH + 2}" class="axis err">0</text>`);
  }
  s.push(`<path class="line cos" d="${cosPath.join('')}"/>`, `<path class="line err" d="${errPath.join('')}"/>`,
         `<path class="zero" d="${zeroPath.join('')}"/>`);
  const dot = (p) => { const [a, b] = p.split(','); return `M${a - 2.2},${b}a2.2,2.2 0 1,0 4.4,0a2.2,2.2 0 1,0 -4.4,0`; };
  for (const k of ['w', 'e']) s.push(`<path class="mark st-${k}" d="${[...marks[k]].map(dot).join('')}"/>`);
  const ty = CT + PH + 3;
  for (const k of ['u', 'w', 'e'])
    s.push(`<path class="tick st-${k}" d="${ticks[k].map((t) => `M${t},${ty}v8`).join('')}"/>`);
  const f = run.R.first;
  if (f) {
    const fx = x(bucket(f.row)).toFixed(1);
    s.push(`<line id="first-divergence" x1="${fx}" x2="${fx}" y1="${CT}" y2="${CT + PH}" class="diverge"/>`,
           +fx > CL + PW * 0.6  // keep the label inside the plot
             ? `<text x="${(+fx - 4).toFixed(1)}" y="${CT + 12}" class="diverge-label" text-anchor="end">first divergence: ${esc(f.entry)}</text>`
             : `<text x="${(+fx + 4).toFixed(1)}" y="${CT + 12}" class="diverge-label">first divergence: ${esc(f.entry)}</text>`);
  }
  s.push(`<line id="chart-cursor" class="cursor" x1="0" x2="0" y1="${CT}" y2="${CT + PH}" visibility="hidden"/>`);
  const ly = CH - 10;
  s.push(hasCos ? `<text x="${CL}" y="${ly}" class="legend cos">— cosine (left)</text>` : '',
         hasErr ? `<text x="${CL + 130}" y="${ly}" class="legend err">— ${esc(ABS_LABEL)}, log scale (right)</text>` : '',
         `<text x="${CL + 420}" y="${ly}" class="legend">ticks: <tspan class="st-e">error</tspan> · <tspan class="st-w">warning</tspan> · <tspan class="st-u">unmatched</tspan> rows</text>`);
  if (!hasCos && !hasErr) s.push(`<text x="${CL + PW / 2}" y="${CT + PH / 2}" class="axis" text-anchor="middle">no metric to plot</text>`);
  $('chart').innerHTML = s.join('');
  Object.assign(chart, { cols, start, x, pick, hot, bucket });
}
function columnAt(ev) {
  const m = $('chart').getScreenCTM();
  if (!m || !chart.cols || !state.run.n) return -1;
  const px = (ev.clientX - m.e) / m.a;
  if (px < CL - 4 || px > CL + PW + 4) return -1;
  const b = Math.max(0, Math.min(chart.cols - 1, chart.cols === 1 ? 0 : Math.round((px - CL) * (chart.cols - 1) / PW)));
  // a column is about a pixel wide: a click next to a failing row's mark means that row
  for (const d of [0, -1, 1, -2, 2]) if (chart.hot[b + d]) return b + d;
  return b;
}
/// Shades the columns that hold rows of the selected module (rows: Uint8Array or null).
function drawSpan(rows) {
  const g = $('chart-span');
  if (!g) return;
  const parts = [], half = chart.cols > 1 ? PW / (chart.cols - 1) / 2 : PW / 2;
  if (rows)
    for (let b = 0; b < chart.cols; ++b) {
      const has = (c) => { for (let i = chart.start[c]; i < chart.start[c + 1]; ++i) if (rows[i]) return true; return false; };
      if (!has(b)) continue;
      let e = b;
      while (e + 1 < chart.cols && has(e + 1)) ++e;
      const x0 = Math.max(CL, chart.x(b) - half), x1 = Math.min(CL + PW, chart.x(e) + half);
      parts.push(`<rect class="span" x="${x0.toFixed(1)}" y="${CT}" width="${Math.max(1, x1 - x0).toFixed(1)}" height="${PH}"/>`);
      b = e;
    }
  g.innerHTML = parts.join('');
}
function markChartRow(i) {
  const c = $('chart-cursor');
  if (!c) return;
  if (i < 0 || !chart.cols) { c.setAttribute('visibility', 'hidden'); return; }
  const xi = chart.x(chart.bucket(i)).toFixed(1);
  c.setAttribute('x1', xi);
  c.setAttribute('x2', xi);
  c.setAttribute('visibility', 'visible');
}
)js";

// --- module tree, heat-map, run selection, start-up -----------------------------------
inline constexpr const char* html_script_page = R"js(
function nodeElement(run, i) {
  const N = run.R.nodes, kids = run.children[i];
  const li = el('li');
  li.setAttribute('role', 'treeitem');
  li.dataset.node = i;
  const tw = el('button', 'tw', kids ? '▸' : '');
  tw.tabIndex = -1;
  if (kids) li.setAttribute('aria-expanded', 'false');
  else tw.disabled = true;
  const nm = el('span', 'nm st-' + N.st[i], S[N.name[i]]);
  nm.tabIndex = 0;
  const m = [];
  if (run.nodeCos[i] !== null) m.push('min cos ' + fmt(run.nodeCos[i]));
  if (run.nodeAbs[i] !== null) m.push((STATS ? 'max |Max diff| ' : 'max abs err ') + fmt(run.nodeAbs[i]));
  li.append(tw, nm, el('span', 'mm', m.join(', ')));
  if (state.subtree === i) nm.classList.add('sel');
  return li;
}
function appendNodes(run, ul, list, from) {
  const to = Math.min(list.length, from + TREE_CAP);
  for (let k = from; k < to; ++k) ul.appendChild(nodeElement(run, list[k]));
  if (to < list.length) {
    const more = el('li', 'more'), b = el('button', '', 'show ' + Math.min(TREE_CAP, list.length - to) + ' more of ' + (list.length - to));
    b.onclick = () => { more.remove(); appendNodes(run, ul, list, to); };
    more.appendChild(b);
    ul.appendChild(more);
  }
}
function expand(li, open) {
  const run = state.run, i = +li.dataset.node, kids = run.children[i];
  if (!kids) return;
  let ul = li.querySelector(':scope > ul');
  if (open && !ul) { ul = el('ul'); ul.setAttribute('role', 'group'); appendNodes(run, ul, kids, 0); li.appendChild(ul); }
  if (ul) ul.hidden = !open;
  li.setAttribute('aria-expanded', String(open));
  li.firstChild.textContent = open ? '▾' : '▸';
}
function childItem(ul, i) {
  for (;;) {
    const li = ul.querySelector(`:scope > li[data-node="${i}"]`);
    if (li) return li;
    const more = ul.querySelector(':scope > li.more > button');
    if (!more) return null;
    more.click();
  }
}
/// Opens the tree down to node i and returns its item.
function openPath(i) {
  const run = state.run, N = run.R.nodes, path = [];
  for (let x = i, guard = 0; x >= 0 && guard < 10000; x = N.parent[x], ++guard) path.unshift(x);
  let ul = $('modules'), li = null;
  for (const x of path) {
    if (li) { expand(li, true); ul = li.querySelector(':scope > ul'); }
    li = childItem(ul, x);
    if (!li) return null;
  }
  return li;
}
function drawTree(run) {
  const ul = $('modules');
  ul.replaceChildren();
  appendNodes(run, ul, run.roots, 0);
  $('tree-empty').hidden = run.roots.length > 0;
  const f = run.R.first;
  if (!f) return;
  for (const [name, cls] of [[f.origin, 'origin'], [f.entry, 'fd']]) {
    const i = run.nodeByName.get(name);
    const li = i === undefined ? null : openPath(i);
    if (li) li.querySelector(':scope > .nm').classList.add(cls);
  }
  const fd = ul.querySelector('.nm.origin') || ul.querySelector('.nm.fd');
  if (fd) { const pane = $('tree-pane'); pane.scrollTop = Math.max(0, fd.offsetTop - pane.clientHeight / 3); }
}
/// Filters the table to node i's subtree and shades its span in the chart.
function selectNode(i) {
  const run = state.run, R = run.R, inTree = new Uint8Array(R.nodes.name.length), stack = [i];
  while (stack.length) {
    const x = stack.pop();
    if (inTree[x]) continue;
    inTree[x] = 1;
    if (run.children[x]) for (const c of run.children[x]) stack.push(c);
  }
  const rows = new Uint8Array(run.n);
  for (let r = 0; r < run.n; ++r) if (R.e[r] >= 0 && inTree[R.e[r]]) rows[r] = 1;
  state.subtree = i;
  state.subtreeRows = rows;
  for (const e of $('modules').querySelectorAll('.nm.sel')) e.classList.remove('sel');
  const li = openPath(i);
  if (li) li.querySelector(':scope > .nm').classList.add('sel');
  $('subtree-name').textContent = S[R.nodes.name[i]];
  $('subtree-chip').hidden = false;
  applyView();
  drawSpan(rows);
}
function clearSubtree(redraw) {
  state.subtree = -1;
  state.subtreeRows = null;
  $('subtree-chip').hidden = true;
  for (const e of $('modules').querySelectorAll('.nm.sel')) e.classList.remove('sel');
  drawSpan(null);
  if (redraw !== false) applyView();
}
function cards(box, items) {
  box.replaceChildren(...items.map(([n, label, cls]) => {
    const c = el('div', 'card' + (cls ? ' st-' + cls : ''));
    c.append(el('b', '', n.toLocaleString('en-US')), label);
    return c;
  }));
}
function drawHeatmap() {
  const steps = [], ranks = [], at = new Map();
  const rankOf = (R) => R.rank >= 0 ? 'rank' + R.rank : (R.step && R.label.startsWith(R.step + '/') ? R.label.slice(R.step.length + 1) : R.label);
  D.runs.forEach((R, k) => {
    if (!steps.includes(R.step)) steps.push(R.step);
    const r = rankOf(R);
    if (!ranks.some((x) => x.key === r)) ranks.push({ key: r, n: R.rank });
    at.set(R.step + '\u0000' + r, k);
  });
  ranks.sort((a, b) => (a.n < 0) - (b.n < 0) || a.n - b.n);
  const t = $('heatmap'), head = el('tr');
  head.append(el('th', '', 'rank \\ step'), ...steps.map((s) => el('th', '', s || '—')));
  const body = ranks.map(({ key }) => {
    const tr = el('tr');
    tr.append(el('th', '', key));
    for (const s of steps) {
      const td = el('td'), k = at.get(s + '\u0000' + key);
      if (k !== undefined) {
        const R = D.runs[k], w = worst(R.st);
        let fails = 0, unmatched = 0;
        for (const c of R.st) { if (failing(c)) ++fails; else if (c === 'u') ++unmatched; }
        const b = el('button', 'hm st-' + w, fails ? String(fails) : unmatched ? String(unmatched) : '✓');
        b.dataset.run = k;
        b.title = (R.label || 'run ' + k) + ': ' + STATUS[w] + ', ' + count(R.st.length, 'row') + ', ' + fails + ' failing, ' +
                  unmatched + ' unmatched';
        b.setAttribute('aria-pressed', 'false');
        td.appendChild(b);
      }
      tr.appendChild(td);
    }
    return tr;
  });
  t.replaceChildren(head, ...body);
  $('heatmap-box').hidden = D.runs.length < 2;
}
function firstNote(box, k, global) {
  box.replaceChildren();
  const R = D.runs[k], f = R && R.first;
  if (!f) {
    box.textContent = global ? 'No divergence found in ' + count(D.runs.length, 'run') + '.' : 'No divergence in this run.';
    return;
  }
  const a = el('a', '', f.entry);
  a.href = '#';
  a.onclick = (ev) => { ev.preventDefault(); if (state.run.k !== k) selectRun(k); scrollToRow(f.row); };
  box.append(global ? 'First divergence of the job: ' : 'First divergence: ', a);
  if (global && R.label) box.append(' in ', el('b', '', R.label));
  if (f.origin && f.origin !== f.entry) box.append(' · origin module ', el('code', '', f.origin));
  if (f.messages.length) box.append(el('div', 'msgs', f.messages.join(' ')));
}
function selectRun(k) {
  const run = prepare(k);
  Object.assign(state, { run, subtree: -1, subtreeRows: null, selected: -1, top: -1 });
  for (const b of $('heatmap').querySelectorAll('button.hm')) {
    const on = +b.dataset.run === k;
    b.classList.toggle('sel', on);
    b.setAttribute('aria-pressed', String(on));
  }
  $('run-title').textContent = (run.R.label || 'Rows') + ' — ' + count(run.n, 'row');
  const c = run.counts;
  cards($('run-summary'), [[c.p, 'pass', 'p'], [c.w, 'warning', 'w'], [c.e, 'error', 'e'], [c.u, 'unmatched', 'u'],
                           [run.R.bench_only.length, 'bench only']]);
  firstNote($('first-divergence-note'), k, false);
  const bo = $('bench-only');
  bo.replaceChildren(...run.R.bench_only.slice(0, 2000).map((s) => el('li', '', S[s])));
  if (run.R.bench_only.length > 2000) bo.append(el('li', '', '… and ' + (run.R.bench_only.length - 2000) + ' more (see the CSV)'));
  $('bench-only-box').hidden = run.R.bench_only.length === 0;
  $('subtree-chip').hidden = true;
  drawChart(run);
  drawTree(run);
  applyView();
  showDetail(-1);
}
function init() {
  const head = $('grid-head');
  for (const c of COLS) {
    const h = el('div', 'c c-' + c.key + (c.cls ? ' ' + c.cls : ''), c.label);
    h.setAttribute('role', 'columnheader');
    h.setAttribute('aria-sort', c.key === 'idx' ? 'ascending' : 'none');
    h.dataset.key = c.key;
    h.onclick = () => sortBy(c.key);
    head.appendChild(h);
  }
  const total = { n: 0, p: 0, w: 0, e: 0, u: 0, b: 0 };
  for (const R of D.runs) {
    total.n += R.st.length;
    total.b += R.bench_only.length;
    for (const c of R.st) total[c]++;
  }
  cards($('summary'), [[D.runs.length, D.runs.length === 1 ? 'run' : 'runs'], [total.n, 'rows'], [total.p, 'pass', 'p'],
                       [total.w, 'warning', 'w'], [total.e, 'error', 'e'], [total.u, 'unmatched', 'u'], [total.b, 'bench only']]);
  drawHeatmap();
  $('summary').hidden = $('first-divergence-note').hidden = D.runs.length < 2;  // the run's own cards say it all
  firstNote($('global-first'), D.first === null ? -1 : D.first, true);
  $('heatmap').addEventListener('click', (ev) => { const b = ev.target.closest('button.hm'); if (b) selectRun(+b.dataset.run); });
  $('grid').addEventListener('scroll', () => renderRows(false), { passive: true });
  $('grid-body').addEventListener('click', (ev) => { const r = ev.target.closest('.r'); if (r) selectRow(+r.dataset.row); });
  $('status-filter').onchange = () => applyView();
  $('name-filter').oninput = () => applyView();
  $('subtree-clear').onclick = () => clearSubtree();
  $('modules').addEventListener('click', (ev) => {
    const li = ev.target.closest('li[data-node]');
    if (!li) return;
    if (ev.target.classList.contains('tw')) expand(li, li.getAttribute('aria-expanded') !== 'true');
    else { expand(li, true); selectNode(+li.dataset.node); }
  });
  $('modules').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && ev.target.classList.contains('nm')) ev.target.click();
  });
  const svg = $('chart'), tip = $('chart-tip');
  svg.addEventListener('click', (ev) => { const b = columnAt(ev); if (b >= 0) scrollToRow(chart.pick[b]); });
  svg.addEventListener('mousemove', (ev) => {
    const b = columnAt(ev);
    if (b < 0) { tip.hidden = true; return; }
    const i = chart.pick[b], run = state.run;
    if (i >= run.n) { tip.hidden = true; return; }
    tip.textContent = '#' + i + ' ' + rowName(run, i) + (run.cos[i] !== null ? '  cos ' + fmt(run.cos[i]) : '') +
                      (run.abs[i] !== null ? '  ' + ABS_LABEL + ' ' + fmt(run.abs[i]) : '') + '  ' + STATUS[run.R.st[i]];
    tip.style.left = (ev.offsetX + 12) + 'px';
    tip.style.top = (ev.offsetY + 12) + 'px';
    tip.hidden = false;
  });
  svg.addEventListener('mouseleave', () => { tip.hidden = true; });
  if (D.runs.length) selectRun(D.first === null ? 0 : D.first);
  else $('run').hidden = true;
  performance.mark('td-ready');
  document.documentElement.dataset.readyMs = performance.now().toFixed(0);
}
init();
)js";

}  // namespace detail
}  // namespace report
TD_NAMESPACE_END
