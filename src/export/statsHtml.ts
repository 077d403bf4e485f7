import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { seriesDefinition } from "../stats/seriesCatalog.js";
import { unitOf, type SeriesDefinition } from "../stats/seriesDefinition.js";
import { seriesLeaves } from "../stats/seriesLeaves.js";
import type { SeriesArray, StatsEntity, StatsResponse } from "../stats/types.js";
import { isoUtc } from "../base/time.js";
import { CHART_AXES } from "./chartAxes.js";

/** What a statistics page is about. */
export interface StatsPageSubject {
  entity: StatsEntity;
  id: number;
  /** The period asked for, epoch seconds, shown in the heading; optional. */
  fromEpoch?: number;
  tillEpoch?: number;
}

/** One line of a statistics chart. */
export interface ChartLine {
  label: string;
  unit: string;
  values: SeriesArray;
}

/** One chart of a statistics page: a series, its units, a line per leaf. */
export interface Chart {
  name: string;
  title: string;
  units: string[];
  lines: ChartLine[];
}

const require = createRequire(import.meta.url);

/**
 * A self-contained HTML page (no network needed to view it: uPlot's script and style are
 * inlined) with one chart per series of a statistics response: time on the x axis (UTC), a
 * line per disk, NIC or sub-series, the unit on the y axis (two axes when a series mixes
 * units, like cpu's allocated vCPUs and inuse %), values under the cursor in the legend.
 * An hour without a sample breaks the lines instead of joining across it.
 */
export async function statsToHtml(response: StatsResponse, subject: StatsPageSubject): Promise<string> {
  const [script, style] = await Promise.all([
    readFile(require.resolve("uplot/dist/uPlot.iife.min.js"), "utf8"),
    readFile(require.resolve("uplot/dist/uPlot.min.css"), "utf8"),
  ]);
  const { x, charts } = statsCharts(response, subject.entity);
  const period =
    subject.fromEpoch !== undefined && subject.tillEpoch !== undefined
      ? ` for [${isoUtc(subject.fromEpoch)}, ${isoUtc(subject.tillEpoch)})`
      : "";
  const heading = `${subject.entity === "cloudspace" ? "Cloud space" : subject.entity === "machine" ? "Machine" : "Account"} ${subject.id}`;
  const payload = JSON.stringify({ x, charts }).replaceAll("<", "\\u003c");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`cloudunits: ${heading} statistics`)}</title>
<style>${style}</style>
<style>${PAGE_STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(heading)}</h1>
<p>${escapeHtml(`Statistics${period}: ${response.time.length} hourly sample${response.time.length === 1 ? "" : "s"}; times in UTC, each point labelled with the start of its hour. Hours without a sample are gaps. Hover a chart to read its values.`)}</p>
</header>
<main id="charts"></main>
<script>${script.replaceAll("</script", "<\\/script")}</script>
<script type="application/json" id="stats-data">${payload}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}

/**
 * The charts of a statistics response: the x values (the hours, with a gap point after every
 * run of missing hours) and one chart per series, a line per leaf (disk, NIC, sub-series)
 * with its label and unit. What the stats page and the dashboard draw.
 */
export function statsCharts(response: StatsResponse, entity: StatsEntity): { x: number[]; charts: Chart[] } {
  const { x, positions } = withGaps(response.time);
  const charts: Chart[] = Object.entries(response.series).map(([name, tree]) => {
    const definition = seriesDefinition(entity, name);
    const lines = seriesLeaves(tree).map((leaf): ChartLine => ({
      label: lineLabel(definition, name, leaf.path),
      unit: definition ? unitOf(definition, leaf.path) : "",
      values: positions.map((i) => (i === null ? null : (leaf.values[i] ?? null))),
    }));
    return { name, title: definition?.title ?? name, units: [...new Set(lines.map((l) => l.unit))], lines };
  });
  return { x, charts };
}

/** The x values with one gap point after every run of missing hours, and where each comes from. */
function withGaps(time: number[]): { x: number[]; positions: (number | null)[] } {
  const x: number[] = [];
  const positions: (number | null)[] = [];
  time.forEach((t, i) => {
    const previous = time[i - 1];
    if (previous !== undefined && t - previous > 3600) {
      x.push(previous + 3600);
      positions.push(null);
    }
    x.push(t);
    positions.push(i);
  });
  return { x, positions };
}

function lineLabel(definition: SeriesDefinition | undefined, name: string, path: string[]): string {
  if (path.length === 0) return name;
  if (definition?.layout.kind === "keyed") {
    return definition.layout.depth === 1 ? `disk ${path[0]}` : `NIC ${path[0]} ${path.slice(1).join(" ")}`;
  }
  return path.join(" ");
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

const PAGE_STYLE = `
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; margin: 0 0 .2em; }
header p { margin: 0 0 1em; color: #555; }
section.chart { margin: 0 0 1.8em; max-width: 1100px; }
section.chart h2 { font-size: 1.05em; margin: 0 0 .3em; }
section.chart h2 small { font-weight: normal; color: #666; }
.empty { color: #a00; }
`;

const PAGE_SCRIPT = `
(function () {
  var payload = JSON.parse(document.getElementById("stats-data").textContent);
  var colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];
  var root = document.getElementById("charts");
  function fmt(v) {
    if (v == null) return "\\u2014";
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e9 || a < 1e-4)) return v.toExponential(3);
    return String(Number(v.toFixed(a < 1 ? 6 : 3)));
  }
  function iso(ts) { return new Date(ts * 1000).toISOString().slice(0, 19) + "Z"; }
${CHART_AXES}  if (payload.x.length === 0) {
    var p = document.createElement("p");
    p.className = "empty";
    p.textContent = "No samples in the period.";
    root.appendChild(p);
    return;
  }
  var plots = [];
  payload.charts.forEach(function (chart) {
    var box = document.createElement("section");
    box.className = "chart";
    var h = document.createElement("h2");
    h.textContent = chart.name + " ";
    var small = document.createElement("small");
    small.textContent = "\\u2014 " + chart.title + " (" + chart.units.join(", ") + ")";
    h.appendChild(small);
    box.appendChild(h);
    root.appendChild(box);
    var scales = { x: { time: true } };
    var axes = [{ label: "time (UTC)", values: ticks }];
    chart.units.forEach(function (unit, i) {
      scales[unit] = { range: range };
      axes.push({ scale: unit, label: unit, side: i === 0 ? 3 : 1, size: 70, grid: { show: i === 0 },
        values: function (u, splits) { return splits.map(fmt); } });
    });
    var series = [{ label: "time", value: function (u, ts) { return ts == null ? "\\u2014" : iso(ts); } }];
    chart.lines.forEach(function (line, i) {
      series.push({ label: line.label, scale: line.unit, stroke: colors[i % colors.length], width: 2,
        points: { show: payload.x.length <= 60, size: 5 },
        value: function (u, v) { return v == null ? "\\u2014" : fmt(v) + " " + line.unit; } });
    });
    var data = [payload.x].concat(chart.lines.map(function (l) { return l.values; }));
    var opts = {
      width: Math.max(320, box.clientWidth), height: 260,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), "Etc/UTC"); },
      scales: scales, axes: axes, series: series,
      cursor: { drag: { x: true, y: false } },
      legend: { live: true }
    };
    plots.push({ plot: new uPlot(opts, data, box), box: box });
  });
  // the uPlot instances, for scripts and tests that inspect the page
  window.cloudunitsCharts = plots.map(function (p) { return p.plot; });
  window.addEventListener("resize", function () {
    plots.forEach(function (p) { p.plot.setSize({ width: Math.max(320, p.box.clientWidth), height: 260 }); });
  });
})();
`;
