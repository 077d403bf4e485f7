import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountStats, machineStats, statsToHtml, type StatsResponse } from "../../src/internal.js";
import { describeWith } from "../helpers/prerequisites.js";
import { fixtureConnection, T0, T5 } from "./statsFixture.js";

const CHROMIUM = "/usr/bin/chromium";
const UNITS: Record<string, string> = {
  cpu: "%",
  memory: "MB",
  "vdisk-iops": "IOPS",
  "vm-iops": "IOPS",
  "vdisk-capacity": "GB",
  "vm-capacity": "GB",
  network: "KB/s",
};
const ALL_MACHINE_SERIES = Object.keys(UNITS);

let connection: DuckDBConnection;
let machine: StatsResponse;
let page: string;
beforeAll(async () => {
  connection = await fixtureConnection();
  machine = await machineStats(connection, {
    machineId: 101,
    accountId: 7,
    from: T0,
    till: T5,
    include: ALL_MACHINE_SERIES,
  });
  page = await statsToHtml(machine, { entity: "machine", id: 101, fromEpoch: T0, tillEpoch: T5 });
});

describe("statsToHtml", () => {
  it("makes a page that needs no network: the charting library is inlined, nothing is fetched", () => {
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\/[^"\s]*\.(js|css)/i);
    expect(page).toContain("uPlot");
    expect(page).toContain("Machine 101");
  });

  it("carries every value of the response (the chart data is the response's arrays)", () => {
    const data = JSON.parse(/<script type="application\/json" id="stats-data">(.*?)<\/script>/s.exec(page)![1]!);
    // T2 is missing: a gap point breaks the lines there
    expect(data.x).toEqual([T0, T0 + 3600, T0 + 2 * 3600, T0 + 3 * 3600, T0 + 4 * 3600]);
    const disks = data.charts.find((c: { name: string }) => c.name === "vdisk-iops");
    expect(disks.lines).toEqual([
      { label: "disk 11", unit: "IOPS", values: [15, 15, null, 30, 0] },
      { label: "disk 12", unit: "IOPS", values: [null, null, null, 6, 0] },
    ]);
  });
});

describeWith("chromium", "statsToHtml in headless Chromium", () => {
  let browser: Browser;
  let dir: string;
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    dir = await mkdtemp(join(tmpdir(), "cloudunits-stats-html-"));
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The axis labels of every chart (uPlot draws them on the canvas, not in the DOM). */
  function axisLabels(tab: Page): Promise<string[][]> {
    return tab.evaluate(() =>
      (globalThis as unknown as { cloudunitsCharts: { axes: { label?: string }[] }[] }).cloudunitsCharts.map((u) =>
        u.axes.map((a) => a.label ?? ""),
      ),
    );
  }

  async function open(html: string) {
    const file = join(dir, `page-${Math.random().toString(36).slice(2)}.html`);
    await writeFile(file, html);
    const tab = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const problems: string[] = [];
    tab.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
    });
    tab.on("pageerror", (e) => problems.push(String(e)));
    tab.on("request", (r) => {
      if (!r.url().startsWith("file:")) problems.push(`network request: ${r.url()}`);
    });
    await tab.goto(`file://${file}`);
    return { tab, problems };
  }

  it("loads without errors and shows one chart per series, with units and a line per disk or NIC", async () => {
    const { tab, problems } = await open(page);
    expect(problems).toEqual([]);
    expect(await tab.locator(".uplot canvas").count()).toBe(ALL_MACHINE_SERIES.length);
    expect(await tab.locator("section.chart h2").allTextContents()).toEqual(
      ALL_MACHINE_SERIES.map((n) => expect.stringContaining(n)),
    );
    const network = tab.locator("section.chart").nth(6);
    expect(await network.locator(".u-legend .u-label").allTextContents()).toEqual([
      "time",
      "NIC 0 in",
      "NIC 0 out",
      "NIC 1 in",
      "NIC 1 out",
    ]);
    expect(await axisLabels(tab)).toEqual(ALL_MACHINE_SERIES.map((n) => ["time (UTC)", UNITS[n]]));
    await tab.close();
  });

  it("shows the values under the cursor in the legend, with their unit", async () => {
    const { tab, problems } = await open(page);
    const cpu = tab.locator("section.chart").first();
    const over = (await cpu.locator(".u-over").boundingBox())!;
    await tab.mouse.move(over.x + 2, over.y + over.height / 2); // the first hour
    expect(await cpu.locator(".u-legend .u-value").allTextContents()).toEqual(["2026-10-01T00:00:00Z", "25 %"]);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it("gives an account's cpu two axes (vCPUs and %) and says so when there is no sample", async () => {
    const account = await accountStats(connection, { accountId: 7, from: T0, till: T5, include: ["cpu"] });
    const { tab, problems } = await open(await statsToHtml(account, { entity: "account", id: 7 }));
    expect(await axisLabels(tab)).toEqual([["time (UTC)", "vCPUs", "%"]]);
    const empty = await open(await statsToHtml({ time: [], series: { cpu: [] } }, { entity: "account", id: 9 }));
    expect(await empty.tab.locator(".empty").textContent()).toBe("No samples in the period.");
    expect([...problems, ...empty.problems]).toEqual([]);
    await Promise.all([tab.close(), empty.tab.close()]);
  });
});
