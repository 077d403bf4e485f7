// The billing workbook of a week of 10 accounts × 200 machines (about 2,000 machines, 372,000
// hourly lines), priced, written with and without the Hourly sheet (`--hourly`): the time to
// write it and the peak RSS of the whole process, each run in a fresh process (xlsxChild.mjs)
// over the same ingested database, three times in turn, the median shown.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const { writeDataset, ingest } = await import(pathToFileURL(join(here, "../../dist/index.js")).href);
const START = 1790812800; // 2026-10-01T00:00Z
const dir = mkdtempSync(join(tmpdir(), "cloudunits-bench-xlsx-"));
try {
  const week = join(dir, "week");
  await writeDataset({ out: week, hours: 168, accounts: 10, spaces: 4, machines: 50, start: START, seed: 7 });
  const db = join(dir, "week.duckdb");
  await ingest([week], { db });
  rmSync(week, { recursive: true });
  const period = JSON.stringify({ start: START, end: START + 168 * 3600 });
  const run = (mode) => {
    const r = spawnSync(process.execPath, [join(here, "xlsxChild.mjs"), db, period, join(dir, `${mode}.xlsx`), mode], {
      encoding: "utf8",
    });
    if (r.status !== 0) throw new Error(`xlsx child (${mode}) failed: ${r.stderr}`);
    return JSON.parse(r.stdout);
  };
  const all = { summary: [], hourly: [] };
  for (let i = 0; i < 3; i++) for (const mode of Object.keys(all)) all[mode].push(run(mode));
  const median = (list) => list.sort((a, b) => a.seconds - b.seconds)[1];
  const without = median(all.summary);
  const withHourly = median(all.hourly);
  const line = (name, m) =>
    `${name.padEnd(24)} ${m.seconds.toFixed(2).padStart(6)} s, ${(m.bytes / 1e6).toFixed(1).padStart(5)} MB workbook, peak RSS ${m.peakRssMb.toFixed(0)} MB`;
  console.log(line("xlsx without --hourly", without));
  console.log(line("xlsx with --hourly", withHourly));
  console.log(
    `--hourly costs ${(withHourly.seconds / without.seconds).toFixed(1)}× the time and ${(withHourly.peakRssMb / without.peakRssMb).toFixed(2)}× the peak RSS`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
