// One measurement of xlsx.bench.mjs, in its own process: opens the warehouse file argv[2],
// computes the priced billing report of argv[3] (JSON {start, end}), writes the workbook to
// argv[4] with `{ hourly: argv[5] === "hourly" }`, and prints JSON: seconds to write, the
// workbook's bytes, the process's peak RSS.
import { statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dist = pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "../../dist/index.js")).href;
const { open, bill, parsePrices, writeBillingXlsx } = await import(dist);
const [db, period, out, mode] = process.argv.slice(2);
const prices = parsePrices({
  currency: "EUR",
  prices: { CU: "0.0125", SU: { perMonth: 40 }, TU: "0.0004", NU: 20, PIU: "0.005" },
});
const store = await open({ db });
try {
  const { report, hourly } = await bill({
    source: store,
    period: JSON.parse(period),
    prices,
    produce: { hourly: true },
  });
  const wall = performance.now();
  await writeBillingXlsx(report, hourly, out, { hourly: mode === "hourly" });
  const seconds = (performance.now() - wall) / 1000;
  process.stdout.write(
    JSON.stringify({ seconds, bytes: statSync(out).size, peakRssMb: (process.resourceUsage().maxRSS * 1024) / 1e6 }),
  );
} finally {
  store.close();
}
