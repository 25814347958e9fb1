// Browser-side checks of the HTML report of a generated job (scripts/gen-job-dumps.py), run by
// scripts/check-html-report.sh (and timed by benchmarks/html_report.sh): html-report-harness.py
// appends this script to a copy of report.html, with the generator's expect.json in place of the
// placeholder below, and reads the results it leaves in the DOM (a pre element with id td-test).
// It acts as a user would: clicks heat-map cells, tree nodes, the chart and column headers, and
// reads what the page then shows (text, computed colours), never the page's own variables.
(() => {
  const X = /*EXPECT*/null;
  const COLOURS = { pass: 'rgb(46, 125, 50)', warning: 'rgb(224, 138, 0)', error: 'rgb(198, 40, 40)',
                    unmatched: 'rgb(128, 128, 128)' };
  const out = { checks: [], timings: {} };
  const check = (name, ok, detail) => out.checks.push({ name, ok: !!ok, detail: String(detail) });
  const $ = (id) => document.getElementById(id);
  const num = (s) => Number(String(s).replace(/[^0-9.]/g, ''));
  const rows = () => [...$('grid-body').querySelectorAll('.r')];
  const cellOf = (r, key) => r.querySelector('.c-' + key).textContent;
  const timed = (name, f) => { const t = performance.now(); f(); out.timings[name] = +(performance.now() - t).toFixed(1); };
  try {
    const ready = +document.documentElement.dataset.readyMs;
    out.timings.ready_ms = ready;
    check('page rendered', ready > 0, ready + ' ms after navigation start');
    const cards = [...$('summary').querySelectorAll('.card')].map((c) => [c.lastChild.textContent, num(c.firstChild.textContent)]);
    check('job summary counts every row', cards.some(([k, v]) => k === 'rows' && v === X.total_rows), JSON.stringify(cards));

    // heat-map: one cell per run, coloured by the generator's plan
    const heat = $('heatmap'), cells = [...heat.querySelectorAll('button.hm')];
    check('heat-map has a cell per run', cells.length === X.runs.length, cells.length + ' cells');
    for (const b of cells) {
      const td = b.parentElement, rank = td.parentElement.cells[0].textContent, step = heat.rows[0].cells[td.cellIndex].textContent;
      const run = X.runs.find((r) => r.step === step && 'rank' + r.rank === rank);
      const bg = getComputedStyle(b).backgroundColor;
      check(`heat-map ${step}/${rank} coloured ${run ? run.status : '?'}`, run && bg === COLOURS[run.status], bg);
    }

    // the job's first divergence on top, and its run open first
    const top = $('global-first').textContent;
    check('first divergence on top names its run', X.first_divergence_run && top.includes(X.first_divergence_run), top);
    check('first divergence run open at start', $('run-title').textContent.startsWith(X.first_divergence_run + ' '),
          $('run-title').textContent);
    check('first divergence path open in the tree', $('modules').querySelector('.nm.origin') !== null &&
          $('modules').querySelector('.nm.fd') !== null, 'origin and entry marked');

    // selecting a cell switches the table
    for (const b of cells) {
      const td = b.parentElement, rank = td.parentElement.cells[0].textContent, step = heat.rows[0].cells[td.cellIndex].textContent;
      const run = X.runs.find((r) => r.step === step && 'rank' + r.rank === rank);
      timed('select ' + run.label, () => b.click());
      const count = $('row-count').textContent, shown = rows();
      check(`cell ${run.label} switches the table`, $('run-title').textContent.startsWith(run.label + ' ') &&
            num(count) === run.rows && b.getAttribute('aria-pressed') === 'true', `${$('run-title').textContent}; ${count}`);
      check(`table of ${run.label} is virtual`, shown.length > 0 && shown.length < 120, shown.length + ' rows in the DOM');
    }
    out.timings.select_run_max_ms = Math.max(...Object.entries(out.timings).filter(([k]) => k.startsWith('select ')).map(([, v]) => v));

    // clicking a tree node filters the table to its subtree and shades its span in the chart
    const err = X.runs.find((r) => r.status === 'error');
    cells.find((b) => b.title.startsWith(err.label + ':')).click();
    const find = () => [...$('modules').querySelectorAll('.nm')].find((n) => n.textContent === X.subtree);
    if (!find()) {  // open the root (as a user would) to reach the layer
      const root = $('modules').querySelector(':scope > li');
      if (root.getAttribute('aria-expanded') !== 'true') root.querySelector('.tw').click();
    }
    const node = find();
    check('subtree node listed in the tree', node, X.subtree);
    timed('tree_click_ms', () => node.click());
    const first = rows()[0];
    check('tree click filters the table', num($('row-count').textContent.split(' of ')[0]) === err.subtree_rows &&
          first && cellOf(first, 'name') === X.subtree + '.input.0', `${$('row-count').textContent}; first row ${first && cellOf(first, 'name')}`);
    check('tree click shades the span in the chart', $('chart-span').querySelectorAll('rect').length >= 1,
          $('chart-span').querySelectorAll('rect').length + ' rects');
    $('subtree-clear').click();
    check('clearing the module filter shows every row', num($('row-count').textContent) === err.rows, $('row-count').textContent);

    // clicking the chart on an error tick scrolls the table to that (failing) row; on the
    // first-divergence rule, to the first divergent row
    const svg = $('chart'), grid = $('grid'), m = svg.getScreenCTM();
    const clickAt = (vx) => svg.dispatchEvent(new MouseEvent('click', { clientX: vx * m.a + m.e, clientY: 100 * m.d + m.f, bubbles: true }));
    const selected = () => {
      const sel = $('grid-body').querySelector('.r.sel');
      const visible = sel && sel.offsetTop + sel.offsetHeight > grid.scrollTop && sel.offsetTop < grid.scrollTop + grid.clientHeight;
      return { sel, visible, text: sel ? `row ${cellOf(sel, 'idx')} ${cellOf(sel, 'st')}, table scrolled to ${grid.scrollTop}px` : 'no row selected' };
    };
    const ticks = ($('chart').querySelector('path.tick.st-e').getAttribute('d').match(/M[0-9.]+/g) || []).map((t) => +t.slice(1));
    check('chart marks the error rows', ticks.length >= 1, ticks.length + ' columns with an error tick');
    timed('chart_click_ms', () => clickAt(Math.max(...ticks)));
    let s = selected();
    check('chart click scrolls the table to the row', s.sel && s.visible && grid.scrollTop > 1000 &&
          cellOf(s.sel, 'st') === 'error' && !$('detail').hidden, s.text);
    clickAt(+$('first-divergence').getAttribute('x1'));
    s = selected();
    check('chart click on the first divergence selects its row', s.sel && s.visible && s.sel.classList.contains('first'), s.text);

    // sortable columns
    const header = (key) => $('grid-head').querySelector(`[data-key="${key}"]`);
    timed('sort_ms', () => { header('st').click(); header('st').click(); });
    check('sorting by result (descending) puts errors first', cellOf(rows()[0], 'st') === 'error', cellOf(rows()[0], 'st'));
    header('abs').click();
    const a0 = Number(cellOf(rows()[0], 'abs')), a1 = Number(cellOf(rows()[1], 'abs'));
    check('sorting by the error column (ascending)', a0 <= a1, `${a0} <= ${a1}`);
    header('idx').click();

    // filters
    $('status-filter').value = 'e';
    $('status-filter').dispatchEvent(new Event('change'));
    check('status filter', rows().every((r) => cellOf(r, 'st') === 'error') && rows().length > 0, $('row-count').textContent);
    $('status-filter').value = '';
    $('status-filter').dispatchEvent(new Event('change'));

    check('no resource requested', performance.getEntriesByType('resource').length === 0,
          JSON.stringify(performance.getEntriesByType('resource').map((e) => e.name)));
  } catch (e) {
    check('harness ran to the end', false, e.stack);
  }
  const pre = document.createElement('pre');
  pre.id = 'td-test';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
