import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveDashboard } from "../../src/index.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { runCli } from "../helpers/runCli.js";

// An hour lost at source (sync gave it up: never written within the platform's retention) is
// said as lost wherever the warehouse is read, and never as "missing 0"; accepting it names it,
// so a missing hour beside it still alarms.

const LOST = "2026-10-05T03:00:00Z";
const MISSING = "2026-10-20T10:00:00Z";
const NOW = { CLOUDUNITS_TEST_NOW: "2026-11-02T08:00:00Z" };
let dir: string;
let db: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-lost-"));
  db = join(dir, "w.duckdb");
  const generated = await runCli([
    "generate",
    "--out",
    join(dir, "october"),
    "--accounts",
    "1",
    "--first-account-id",
    "1",
    "--spaces",
    "1",
    "--machines",
    "1",
    "--hours",
    "744",
    "--start",
    "2026-10-01",
    "--missing-hours",
    `${LOST},${MISSING}`,
  ]);
  expect(generated.code, generated.stderr).toBe(0);
  expect((await runCli(["ingest", join(dir, "october"), "--db", db])).code).toBe(0);
  // what the sync that gave the hour up logs (test/sync/noHourLost.test.ts runs that sync)
  const { instance, connection } = await openDatabaseFile(db);
  await connection.run(
    "INSERT INTO sync_log (account_id, hour_epoch, event) VALUES (1, epoch(TIMESTAMPTZ '2026-10-05 03:00:00+00')::BIGINT, 'lost')",
  );
  connection.closeSync();
  instance.closeSync();
  writeFileSync(
    join(dir, "prices.yaml"),
    "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n",
  );
  writeFileSync(
    join(dir, "statement.yaml"),
    [
      "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, 20457 Hamburg], country: DE, vatId: DE123456789,",
      "  peppolId: '9930:DE123456789', tax: { category: S, ratePercent: 19 }, contact: [billing@nordlicht.example], bank: [IBAN DE89 3704 0044 0532 0130 00] }",
      "numbering: { pattern: 'INV-{yyyy}-{seq:05}', creditNotePattern: 'CN-{yyyy}-{seq:05}' }",
      "customers:",
      "  '1': { legalName: Hanse Logistik AG, address: [Am Sandtorkai 1, 20457 Hamburg], country: DE, vatId: DE987654321, peppolId: '9930:DE987654321' }",
    ].join("\n"),
  );
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an hour lost at source", { timeout: 120_000 }, () => {
  it("billing --db warns of it as lost, apart from the hour missing", async () => {
    const run = await runCli(
      ["billing", "--db", db, "--month", "2026-10", "--format", "json", "--out", join(dir, "bill.json")],
      NOW,
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `account 1: 1 hour missing in [2026-10-01T00:00:00Z, 2026-11-01T00:00:00Z): ${MISSING}`,
    );
    expect(run.stderr).toContain(
      `account 1: 1 hour of [2026-10-01T00:00:00Z, 2026-11-01T00:00:00Z) lost at source (never written by the platform within its retention, given up by sync): ${LOST}`,
    );
    expect(run.stderr).not.toContain("2 hours missing");
  });

  it("invoices issue refuses it as lost at source, to accept with --accept-missing, apart from the hour to sync", async () => {
    const run = await runCli(
      [
        "invoices",
        "issue",
        "--db",
        db,
        "--month",
        "2026-10",
        "--statement",
        join(dir, "statement.yaml"),
        "--prices",
        join(dir, "prices.yaml"),
        "--out",
        join(dir, "issued"),
      ],
      NOW,
    );
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain(
      `account 1: 1 hour lost at source (never written within the platform's retention): ${LOST}: accept with --accept-missing`,
    );
    expect(run.stderr).toContain(`account 1: 1 hour not held: ${MISSING}: sync or ingest them`);
  });

  it("the dashboard counts it in red beside Missing, in the overview's Freshness table and /quality's", async () => {
    const dashboard = await serveDashboard({ db, port: 0 });
    try {
      for (const [path, table] of [
        ["?month=2026-10", "freshness"],
        ["quality", "quality"],
      ]) {
        const html = await (await fetch(`${dashboard.url}${path}`)).text();
        const section = html.slice(html.indexOf(`id="${table}"`));
        const headings = [...section.slice(0, section.indexOf("</thead>")).matchAll(/<th[^>]*>(.*?)<\/th>/g)].map((m) =>
          m[1]!.replace(/<small>.*<\/small>/, ""),
        );
        const cells = [
          ...section.slice(section.indexOf("<tbody>"), section.indexOf("</tbody>")).matchAll(/<td[^>]*>(.*?)<\/td>/g),
        ].map((m) => m[1]!);
        expect(headings.indexOf("Lost"), path).toBe(headings.indexOf("Missing") + 1);
        expect(cells[headings.indexOf("Lost")], path).toBe('<span class="bad">1</span>');
        expect(cells[headings.indexOf("Missing")], path).toBe('<span class="bad">1</span>');
      }
    } finally {
      await dashboard.close();
    }
  });

  it("status exits 7 for it until it is accepted by name (recorded in the warehouse); the missing hour beside it still alarms; --max-missing, a count, is refused", async () => {
    const before = await runCli(["status", "--db", db], NOW);
    expect(before.code).toBe(7);
    expect(before.stderr).toContain("account 1 (1 h missing, 1 h lost at source, not accepted)");

    const count = await runCli(["status", "--db", db, "--max-missing", "2"], NOW);
    expect(count.code).toBe(2);
    expect(count.stderr).toContain("--max-missing is no longer taken");
    expect(count.stderr).toContain("--accept-lost HOUR");
    const notLost = await runCli(["status", "--db", db, "--accept-lost", MISSING], NOW);
    expect(notLost.code).toBe(2);
    expect(notLost.stderr).toContain(`not lost at source: ${MISSING}`);

    const accept = await runCli(["status", "--db", db, "--accept-lost", LOST], NOW);
    expect(accept.stderr).toContain(`account 1: ${LOST} accepted as lost at source`);
    expect(accept.stdout).toContain(`    of which accepted (--accept-lost): 1 h: ${LOST}`);
    // the missing hour still alarms; the lost one, accepted, no longer does
    expect(accept.code).toBe(7);
    expect(accept.stderr).toContain("account 1 (1 h missing)");
    const after = await runCli(["status", "--db", db, "--format", "json"], NOW);
    expect(after.code).toBe(7);
    expect(JSON.parse(after.stdout).accounts[0]).toMatchObject({
      lost: [{ from: LOST, hours: 1 }],
      acceptedLost: [{ from: LOST, hours: 1 }],
    });
    expect(after.stderr).not.toContain("lost at source, not accepted");
  });
});
