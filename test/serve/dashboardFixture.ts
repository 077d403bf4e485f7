import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ingest } from "../../src/store/ingest.js";
import { loadNames, loadPrices, openWarehouse, writeDataset, type Names, type PriceList } from "../../src/internal.js";
import { REPO } from "../helpers/shellExamples.js";

/** A warehouse for the dashboard's tests: what the pages are checked against. */
export interface DashboardFixture {
  dir: string;
  db: string;
  prices: PriceList;
  names: Names;
  /** The names file: every account, cloud space and machine named `<kind> <id> name`, so a statement can be searched for another's. */
  namesFile: string;
  remove(): void;
}

/** The months the fixture holds: October 2026 whole, and November to the 10th. */
export const FIXTURE_MONTHS = ["2026-10", "2026-11"];

/**
 * Three accounts (1-3) × 2 cloud spaces × 4 machines, every hour from 2026-10-01 to
 * 2026-11-10 but 1% of each account's (missing), with the generator's halted machines;
 * ingested into a warehouse; the shipped price list; a names file naming everything.
 */
export async function dashboardFixture(): Promise<DashboardFixture> {
  const dir = mkdtempSync(join(tmpdir(), "cloudunits-serve-"));
  const zip = join(dir, "data.zip");
  await writeDataset({
    out: zip,
    accounts: 3,
    spaces: 2,
    machines: 4,
    hours: 24 * 40,
    start: 1790812800,
    seed: 11,
    missingHours: 0.01,
  });
  const db = join(dir, "warehouse.duckdb");
  await ingest([zip], { db });
  const w = await openWarehouse({ db });
  let rows: { kind: string; id: number }[];
  try {
    rows = (
      await w.connection.runAndReadAll(
        "SELECT DISTINCT 'account' AS kind, account_id AS id FROM account_hours UNION ALL SELECT DISTINCT 'cloudspace', cloudspace_id FROM cloudspaces UNION ALL SELECT DISTINCT 'machine', machine_id FROM machines WHERE type = 'vm'",
      )
    )
      .getRowObjectsJS()
      .map((r) => ({ kind: String(r.kind), id: Number(r.id) }));
  } finally {
    w.close();
  }
  const namesFile = join(dir, "names.csv");
  writeFileSync(namesFile, `kind,id,name\n${rows.map((r) => `${r.kind},${r.id},${r.kind} ${r.id} name`).join("\n")}\n`);
  return {
    dir,
    db,
    namesFile,
    prices: await loadPrices(join(REPO, "examples/prices.yaml")),
    names: await loadNames(namesFile),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
