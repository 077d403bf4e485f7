import { CHART_AXES } from "../../export/chartAxes.js";

/**
 * The dashboard's page script (`/assets/dashboard.js`): draws the charts of the page's
 * `#charts-data` with uPlot (legends with the values under the cursor, one y axis per unit,
 * shaded bands for halted hours), sorts tables by a clicked heading, and submits the month
 * picker on change.
 */
export const DASHBOARD_SCRIPT = `
(function () {
  "use strict";
  var colors = ["#1f5fbf", "#c2410c", "#15803d", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#be185d", "#4b5563", "#65a30d"];
  function fmt(v) {
    if (v == null) return "\\u2014";
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e12 || a < 1e-4)) return v.toExponential(3);
    return v.toLocaleString("en-US", { maximumFractionDigits: a < 1 ? 4 : a < 100 ? 2 : 1 });
  }
  function iso(ts, day) { var t = new Date(ts * 1000).toISOString(); return day ? t.slice(0, 10) : t.slice(0, 19) + "Z"; }
${CHART_AXES}  function bandsPlugin(bands) {
    return { hooks: { drawClear: [function (u) {
      var ctx = u.ctx;
      ctx.save();
      ctx.fillStyle = "rgba(179, 38, 30, 0.13)";
      bands.forEach(function (b) {
        var x0 = u.valToPos(b.from, "x", true), x1 = u.valToPos(b.to, "x", true);
        ctx.fillRect(x0, u.bbox.top, Math.max(1, x1 - x0), u.bbox.height);
      });
      ctx.restore();
    }] } };
  }
  var data = JSON.parse(document.getElementById("charts-data").textContent);
  var plots = [];
  data.charts.forEach(function (chart) {
    var box = document.getElementById(chart.id);
    if (!box) return;
    if (chart.x.length === 0) {
      var p = document.createElement("p");
      p.className = "empty";
      p.textContent = "No samples in the period.";
      box.appendChild(p);
      return;
    }
    var day = !!chart.bars;
    var scales = { x: { time: true } };
    var axes = [{ label: day ? "day (UTC)" : "time (UTC)", values: day ? function (u, s) { return s.map(function (t) { return iso(t, true).slice(5); }); } : ticks }];
    chart.units.forEach(function (unit, i) {
      scales[unit] = { range: range };
      axes.push({ scale: unit, label: unit, side: i === 0 ? 3 : 1, size: 78, grid: { show: i === 0 }, values: function (u, s) { return s.map(fmt); } });
    });
    var series = [{ label: day ? "day" : "time", value: function (u, ts) { return ts == null ? "\\u2014" : iso(ts, day); } }];
    chart.lines.forEach(function (line, i) {
      var s = { label: line.label, scale: line.unit, stroke: colors[i % colors.length], width: 2,
        value: function (u, v) { return v == null ? "\\u2014" : fmt(v) + " " + line.unit; } };
      if (day) {
        s.fill = colors[i % colors.length] + "cc";
        s.paths = uPlot.paths.bars({ size: [0.7, 40] });
        s.points = { show: false };
      } else s.points = { show: chart.x.length <= 60, size: 5 };
      series.push(s);
    });
    var opts = {
      width: Math.max(200, box.clientWidth), height: day ? 220 : 280,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC"); },
      scales: scales, axes: axes, series: series,
      cursor: { drag: { x: true, y: false } },
      legend: { live: true },
      plugins: chart.bands && chart.bands.length ? [bandsPlugin(chart.bands)] : []
    };
    if (day) { opts.scales.x.range = function (u, min, max) { return [min - 43200, max + 43200]; }; }
    var plot = new uPlot(opts, [chart.x].concat(chart.lines.map(function (l) { return l.values; })), box);
    plots.push({ plot: plot, box: box, height: opts.height });
  });
  window.cloudunitsCharts = plots.map(function (p) { return p.plot; });
  window.addEventListener("resize", function () {
    plots.forEach(function (p) { p.plot.setSize({ width: Math.max(200, p.box.clientWidth), height: p.height }); });
  });
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, col) {
      th.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var numeric = th.classList.contains("num");
        var rows = Array.prototype.slice.call(table.tBodies[0].rows);
        rows.sort(function (a, b) {
          var x = a.cells[col].getAttribute("data-sort"), y = b.cells[col].getAttribute("data-sort");
          if (x == null) x = a.cells[col].textContent; if (y == null) y = b.cells[col].textContent;
          var c = numeric ? Number(x) - Number(y) : String(x).localeCompare(String(y));
          return ascending ? c : -c;
        });
        rows.forEach(function (r) { table.tBodies[0].appendChild(r); });
      });
    });
  });
  Array.prototype.forEach.call(document.querySelectorAll("select[data-autosubmit]"), function (select) {
    select.addEventListener("change", function () { select.form.submit(); });
  });
})();
`;
