import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ingest, writeDataset } from "../../src/index.js";

/**
 * October 2026 of accounts 7101, 7102... (seed 3, one cloud space and one machine each) ingested into
 * `db`, with examples/statement.yaml as `statement.yaml` and a EUR price list as `prices.yaml` in `dir`:
 * account 7102's invoice is CU 65.80 + SU 0.36 + TU 2.47 + NU 162.59 = 231.22 before tax, VAT 19 % 43.93,
 * amount due 275.15 EUR (test/invoices/partialCredit.test.ts works the same figures through the CLI).
 */
export async function octoberWarehouse(dir: string, db: string, accounts = 2): Promise<void> {
  await writeOctober(join(dir, "october"), accounts);
  await ingest([join(dir, "october")], { db });
  copyFileSync(join(import.meta.dirname, "../../examples/statement.yaml"), join(dir, "statement.yaml"));
  writeFileSync(
    join(dir, "prices.yaml"),
    "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n",
  );
}

/** The hourly files of October 2026 of accounts 7101, 7102... (seed 3, one cloud space and one machine each) into `out`. */
export async function writeOctober(out: string, accounts: number): Promise<void> {
  await writeDataset({
    out,
    accounts,
    firstAccountId: 7101,
    spaces: 1,
    machines: 1,
    hours: 744,
    start: Date.parse("2026-10-01T00:00:00Z") / 1000,
    seed: 3,
  });
}
