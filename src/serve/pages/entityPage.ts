import { statsCharts } from "../../export/statsHtml.js";
import type { EntityData } from "../entityData.js";
import { when, esc, monthPicker, page, withMonth, type ChartSpec } from "./html.js";
import { chartBoxes } from "./overviewPage.js";

/** Runs of halted hours listed (all are shaded). */
const LISTED = 8;

/** Consecutive hours as bands `[from, to)` with the label of their first hour. */
export function haltedBands(
  halted: readonly { hourEpoch: number; status: string }[],
): { from: number; to: number; label: string }[] {
  const bands: { from: number; to: number; label: string }[] = [];
  for (const h of halted) {
    const last = bands.at(-1);
    if (last && last.to === h.hourEpoch && last.label === h.status) last.to = h.hourEpoch + 3600;
    else bands.push({ from: h.hourEpoch, to: h.hourEpoch + 3600, label: h.status });
  }
  return bands;
}

/** A machine's or cloud space's page: every statistics series as a chart, halted hours shaded and listed. */
export function entityPage(data: EntityData): string {
  const month = data.month.month;
  const what = data.entity === "machine" ? "Machine" : "Cloud space";
  const bands = haltedBands(data.halted);
  const { x, charts } = statsCharts(data.stats, data.entity);
  const specs: ChartSpec[] = charts.map((c) => ({
    id: `series-${c.name}`,
    title: c.name,
    subtitle: `${c.title} (${c.units.join(", ")})`,
    x,
    units: c.units,
    lines: c.lines,
    bands,
  }));
  const where =
    `<a href="${esc(withMonth(`/account/${data.accountId}`, month))}">account ${data.accountId}${data.accountName ? ` (${esc(data.accountName)})` : ""}</a>` +
    (data.entity === "machine"
      ? ` › <a href="${esc(withMonth(`/cloudspace/${data.cloudspaceId}`, month))}">cloud space ${data.cloudspaceId}${data.cloudspaceName ? ` (${esc(data.cloudspaceName)})` : ""}</a>`
      : "");
  const haltedText = data.entity === "machine" ? "not running" : "with no machine running";
  const neverHalted =
    data.entity === "machine"
      ? `Running in every hour of ${month} it has a sample for.`
      : `A machine running in every hour of ${month} the cloud space has a sample for.`;
  const haltedList =
    bands.length === 0
      ? `<p class="note" id="halted">${esc(neverHalted)}</p>`
      : `<p id="halted">Hours ${esc(haltedText)} (shaded red in the charts): ${bands.reduce((n, b) => n + (b.to - b.from) / 3600, 0)} h, in ${bands.length} run${bands.length === 1 ? "" : "s"} (a run ends at a change or an hour without a sample)</p><ul class="compact">${bands
          .slice(0, LISTED)
          .map(
            (b) =>
              `<li>from ${esc(when(b.from))}, ${(b.to - b.from) / 3600} h <span class="tag">${esc(b.label)}</span></li>`,
          )
          .join(
            "",
          )}${bands.length > LISTED ? `<li class="note">and ${bands.length - LISTED} more runs</li>` : ""}</ul>`;
  const base = `/${data.entity}/${data.id}`;
  const body = `
<p class="crumbs"><a href="${esc(withMonth("/", month))}">Overview</a> › ${where} › ${what.toLowerCase()} ${data.id}</p>
<div class="head"><div><h1>${what} ${data.id}${data.name ? ` <small>${esc(data.name)}</small>` : ""}</h1>
<p class="lead">${esc(month)}: ${data.stats.time.length} hourly samples; times in UTC, each point at the start of its hour; hours without a sample are gaps. Hover a chart to read its values; drag to zoom, double-click to zoom out.</p></div>
${monthPicker(data.months, month, base)}</div>
${haltedList}
${chartBoxes(specs, true)}`;
  return page(
    `${what} ${data.id} ${month}`,
    body,
    specs,
    "Series as <code>cloudunits stats</code> gives them, read-only from the warehouse.",
  );
}
