import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { DASHBOARD_SCRIPT } from "./pages/script.js";
import { DASHBOARD_STYLE } from "./pages/style.js";

/** A file the dashboard serves under `/assets/`. */
export interface Asset {
  type: string;
  body: Buffer;
}

const require = createRequire(import.meta.url);

/** The dashboard's assets by name: uPlot (from the installed package: no CDN), its own script and style. */
export async function loadAssets(): Promise<ReadonlyMap<string, Asset>> {
  const [uplot, uplotCss] = await Promise.all([
    readFile(require.resolve("uplot/dist/uPlot.iife.min.js")),
    readFile(require.resolve("uplot/dist/uPlot.min.css")),
  ]);
  const js = "text/javascript; charset=utf-8";
  const css = "text/css; charset=utf-8";
  return new Map([
    ["uPlot.iife.min.js", { type: js, body: uplot }],
    ["uPlot.min.css", { type: css, body: uplotCss }],
    ["dashboard.js", { type: js, body: Buffer.from(DASHBOARD_SCRIPT) }],
    ["dashboard.css", { type: css, body: Buffer.from(DASHBOARD_STYLE) }],
  ]);
}
