/**
 * The inline script and stylesheet of index.html. The script is plain browser JavaScript kept as text
 * (the project's TypeScript has no DOM types, and a function's source would carry whatever a test
 * runner's transform added): it reads the `report-data` JSON and hands each chart spec (chart-data.ts)
 * to uPlot, each chart in its own try/catch so one broken chart neither hides the others nor goes
 * unnoticed (console.error, which the page test treats as a failure). When every chart has drawn or
 * failed, `body[data-charts-rendered]` says how many drew, beside `data-charts-expected`.
 */

export const pageScript = `
(() => {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const charts = data.charts;
  const body = document.body;
  body.dataset.chartsExpected = String(charts.length);
  let drawn = 0;
  let settled = 0;
  const pending = new Set();

  const finish = () => {
    if (settled === charts.length) body.dataset.chartsRendered = String(drawn);
  };
  const settle = (id, ok) => {
    if (!pending.delete(id)) return;
    settled++;
    if (ok) drawn++;
    finish();
  };

  const format = (value) => {
    if (value === null || value === undefined || !Number.isFinite(value)) return '–';
    if (Number.isInteger(value) || Math.abs(value) >= 100) return Math.round(value).toLocaleString('en-US');
    return String(Number(value.toPrecision(3)));
  };
  // The nines axis: x = -log10(1 - p/100), so 1 is 90 %, 2 is 99 %, 3 is 99.9 %.
  const percentileAt = (x) => Number((100 * (1 - Math.pow(10, -x))).toFixed(4));
  const ninesLabel = (x) => (Number.isInteger(x) ? percentileAt(x) + '%' : '');
  // Log axes hand their unlabelled minor splits over as null.
  const tick = (value) => (value === null || value === undefined ? '' : format(value));
  const ticks = (_u, splits) => splits.map(tick);
  const shortName = (name) => (name.length > 24 ? name.slice(0, 23) + '…' : name);

  const axisFont = '12px system-ui, sans-serif';
  const labelFont = 'bold 12px system-ui, sans-serif';
  const grid = { stroke: '#e5e5e5', width: 1 };

  function xOptions(chart) {
    const x = chart.x;
    const axis = { label: x.label, font: axisFont, labelFont, grid };
    if (x.scale === 'nines') {
      const last = Math.max(1, Math.ceil(x.values[x.values.length - 1]));
      const steps = Array.from({ length: last + 1 }, (_, i) => i);
      return {
        scale: { time: false, range: () => [0, last] },
        axis: { ...axis, splits: () => steps, values: (_u, splits) => splits.map(ninesLabel) },
        legend: (v) => (v === null || v === undefined ? '–' : 'p' + percentileAt(v)),
      };
    }
    if (x.scale === 'log') {
      const first = x.values[0];
      const final = x.values[x.values.length - 1];
      const low = Math.pow(10, Math.floor(Math.log10(first)));
      const high = Math.pow(10, Math.ceil(Math.log10(final === first ? final * 10 : final)));
      return {
        scale: { time: false, distr: 3, log: 10, range: () => [low, high] },
        axis: { ...axis, values: ticks },
        legend: (v) => (v === null || v === undefined ? '–' : 'batch ' + format(v)),
      };
    }
    if (x.scale === 'rules') {
      const names = x.names;
      const slots = x.values;
      // Room for the longest (shortened) rule id, written vertically.
      const longest = Math.max(...names.map((name) => shortName(name).length));
      return {
        scale: { time: false, range: () => [-0.5, slots.length - 0.5] },
        axis: {
          ...axis,
          splits: () => slots,
          values: (_u, splits) => splits.map((i) => shortName(names[i] ?? '')),
          rotate: -90,
          size: Math.min(200, 28 + 7 * longest),
          grid: { show: false },
        },
        legend: (v) => (v === null || v === undefined ? '–' : (names[v] ?? '')),
      };
    }
    return {
      scale: { time: false },
      axis: { ...axis, values: ticks },
      legend: (v) => (v === null || v === undefined ? '–' : format(v) + ' s'),
    };
  }

  function options(chart, width) {
    const bars = chart.kind === 'stacked-bars';
    const x = xOptions(chart);
    const scales = { x: x.scale, y: chart.y.log ? { distr: 3, log: 10 } : { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] } };
    const y = { scale: 'y', label: chart.y.label, font: axisFont, labelFont, grid, size: 64, values: ticks };
    // Case counts are whole: no 2.5 cases on the verdict chart's axis.
    if (bars) y.incrs = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
    const axes = [x.axis, y];
    if (chart.y2) {
      scales.y2 = { range: (_u, _min, max) => [0, max > 0 ? max * 1.05 : 1] };
      axes.push({ scale: 'y2', side: 1, label: chart.y2.label, font: axisFont, labelFont, size: 64, grid: { show: false }, values: ticks });
    }
    const series = [
      { label: chart.x.label, value: (_u, v) => x.legend(v) },
      ...chart.series.map((line) => ({
        label: line.label,
        scale: line.axis,
        stroke: line.color,
        width: bars ? 0 : 2,
        fill: bars ? line.color : undefined,
        paths: bars ? uPlot.paths.bars({ size: [0.8, 28], align: 0 }) : undefined,
        points: { show: !bars && chart.x.values.length <= 30, size: 5, fill: line.color },
        value: (_u, v, _s, idx) => format(line.own && idx !== null && idx !== undefined ? line.own[idx] : v),
      })),
    ];
    return { width, height: bars ? 420 : 300, scales, axes, series, legend: { live: true }, cursor: { drag: { x: false, y: false } } };
  }

  // A soak's faults, shaded behind the series over the seconds each lasted and named by occurrence at
  // the top; a kill healed within a second still gets a visible stripe. The container says how many
  // it drew (data-bands), for the page test.
  function bandsHook(chart, container) {
    return (u) => {
      const ratio = uPlot.pxRatio || 1;
      const ctx = u.ctx;
      ctx.save();
      let drawn = 0;
      for (const band of chart.bands) {
        const x0 = u.valToPos(band.from, 'x', true);
        const x1 = u.valToPos(band.to, 'x', true);
        ctx.fillStyle = 'rgba(198, 40, 40, 0.14)';
        ctx.fillRect(x0, u.bbox.top, Math.max(2 * ratio, x1 - x0), u.bbox.height);
        ctx.fillStyle = '#c62828';
        ctx.font = 10 * ratio + 'px system-ui, sans-serif';
        ctx.fillText(band.label.split(' ')[0], x0 + 2 * ratio, u.bbox.top + 12 * ratio);
        drawn++;
      }
      ctx.restore();
      container.dataset.bands = String(drawn);
    };
  }

  for (const chart of charts) pending.add(chart.id);
  for (const chart of charts) {
    try {
      const container = document.getElementById('chart-' + chart.id);
      const plot = container && container.querySelector('.plot');
      if (!plot) throw new Error('no container [data-chart="' + chart.id + '"]');
      const opts = options(chart, Math.max(320, Math.floor(plot.getBoundingClientRect().width)));
      // Values show in the legend while the cursor is on the plot; away from it the legend is a key
      // of the series (uPlot would print "–" for every value, which reads as missing data).
      const idle = (u) => u.root.classList.toggle('cursor-off', u.cursor.idx === null || u.cursor.idx === undefined);
      opts.hooks = { draw: [() => settle(chart.id, true)], ready: [idle], setLegend: [idle] };
      if (chart.bands && chart.bands.length > 0) opts.hooks.drawClear = [bandsHook(chart, container)];
      new uPlot(opts, [chart.x.values, ...chart.series.map((line) => line.values)], plot);
    } catch (error) {
      console.error('chart ' + chart.id + ' failed: ' + (error && error.stack ? error.stack : error));
      settle(chart.id, false);
    }
  }
  finish();
  // A chart that neither threw nor drew (an error inside uPlot's deferred draw) must not leave the
  // page waiting forever: after 10 s it counts as failed, loudly.
  setTimeout(() => {
    for (const id of [...pending]) {
      console.error('chart ' + id + ' did not draw');
      settle(id, false);
    }
  }, 10000);
})();
`;

export const pageStyle = `
:root { color-scheme: light; --ok: #2e7d32; --bad: #c62828; --line: #ddd; --quiet: #666; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #222; background: #fafafa; }
header, main { max-width: 1200px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 16px; }
h1 { font-size: 22px; margin: 8px 0; }
h1 small, h2 small { font-weight: normal; color: var(--quiet); font-size: 14px; }
h2 { font-size: 19px; margin: 24px 0 8px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 0 0 4px; }
.gate { font-size: 16px; margin: 4px 0; }
.gate.ok strong, td.ok { color: var(--ok); }
.gate.bad strong, td.bad { color: var(--bad); font-weight: 600; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; }
.facts dt { color: var(--quiet); }
.facts dd { margin: 0; }
.problem { color: var(--bad); margin: 4px 0; }
.problems h2 { font-size: 15px; border: 0; margin: 8px 0 0; }
.quiet, .no-data { color: var(--quiet); }
.scenario { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px; margin: 16px 0; }
.scenario.failed { border-left: 4px solid var(--bad); }
.tables { display: flex; flex-wrap: wrap; gap: 8px 24px; align-items: flex-start; }
table { border-collapse: collapse; margin: 8px 0; font-size: 13px; }
caption { text-align: left; font-weight: 600; padding: 2px 0; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; margin-top: 8px; }
.charts.wide { grid-template-columns: 1fr; }
figure.chart { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 8px; min-width: 0; }
figcaption { font-weight: 600; margin-bottom: 4px; }
.plot { width: 100%; }
.u-legend { font-size: 12px; }
.cursor-off .u-legend .u-value, .cursor-off .u-legend .u-series:first-child { display: none; }
.cursor-off .u-inline.u-live th::after { content: ""; }
.failures { background: #fff; border: 1px solid var(--line); border-left: 4px solid var(--bad); border-radius: 6px; padding: 8px 16px; margin: 12px 0; }
.failures h4 { font-size: 14px; margin: 10px 0 2px; text-transform: uppercase; color: var(--quiet); }
.failures h5 { font-size: 13px; margin: 6px 0 2px; }
details.case { border-bottom: 1px solid var(--line); padding: 3px 0; }
details.case summary { cursor: pointer; overflow-wrap: anywhere; }
details.case .verdict { font-weight: 600; font-size: 12px; }
details.case.fail .verdict, details.case.stale .verdict { color: var(--bad); }
details.case.error .verdict { color: #b26a00; }
details.case.blocked .verdict { color: var(--quiet); }
details.case pre.reason, details.case pre.curl, details.case pre.answer { white-space: pre-wrap; overflow-wrap: anywhere; background: #f6f6f6; padding: 6px 8px; margin: 6px 0; font-size: 12px; }
details.case ul.notes { margin: 4px 0; padding-left: 20px; font-size: 12px; overflow-wrap: anywhere; }
`;
