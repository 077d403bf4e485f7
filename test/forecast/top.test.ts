import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeNames, parsePrices, previousPeriod, top, topToCsv, topToJson, topToText } from "../../src/internal.js";
import { scenarioCloudspaceId, scenarioMachineId } from "../../src/generate/scenario.js";
import { runCli } from "../helpers/runCli.js";
import { GROWING_OCTOBER, OCT_1, SEP_1, scenarioWarehouse } from "../helpers/scenarioWarehouse.js";
import { reportFrom } from "../helpers/billFrom.js";

const PRICES_JSON = { currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } };
const PRICES = parsePrices(PRICES_JSON, "test prices");
const NOV_1 = Date.UTC(2026, 10, 1) / 1000;
/** September, then October with two more machines per cloud space from Oct 15. */
const SCENARIO = GROWING_OCTOBER;

let connection: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-top-"));
  connection = await scenarioWarehouse(SCENARIO);
}, 120_000);
afterAll(() => {
  connection?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe("top", () => {
  it(
    "ranks machines by cost as billing allocates it, with the change against the month before",
    { timeout: 120_000 },
    async () => {
      const ranking = await top(connection, { start: OCT_1, end: NOV_1, by: "cost", prices: PRICES, limit: 30 });
      const report = await reportFrom(connection, { start: OCT_1, end: NOV_1 }, {}, { prices: PRICES });
      const costs = report.lines
        .flatMap((l, i) =>
          l.level === "machine" ? [{ id: l.machineId, cost: report.money![i]!.amount.toNumber() }] : [],
        )
        .sort((a, b) => b.cost - a.cost);
      expect(ranking.entities).toBe(costs.length);
      expect(ranking.rows.map((r) => [r.machineId, r.value])).toEqual(costs.slice(0, 30).map((c) => [c.id, c.cost]));
      expect(ranking.previous).toEqual({ start: SEP_1, end: OCT_1 });
      // a machine added on Oct 15 is new; one of September has its change against September's cost
      const added = ranking.rows.find((r) => r.machineId! % 100 === 4)!;
      expect(added.previous).toBeNull();
      expect(added.change).toBeNull();
      const old = ranking.rows.find((r) => r.machineId! % 100 === 1)!;
      expect(old.change).toBeCloseTo((old.value - old.previous!) / old.previous!, 12);
    },
  );

  it("keeps --limit rows, ranks accounts by a unit, and refuses cost without prices", async () => {
    const accounts = await top(connection, { start: OCT_1, end: NOV_1, by: "CU", level: "account", limit: 1 });
    expect(accounts.rows).toHaveLength(1);
    expect(accounts.entities).toBe(2);
    const all = await top(connection, { start: OCT_1, end: NOV_1, by: "CU", level: "account" });
    expect(accounts.rows[0]!.value).toBe(Math.max(...all.rows.map((r) => r.value)));
    await expect(top(connection, { start: OCT_1, end: NOV_1, by: "cost" })).rejects.toThrow(/needs a price list/);
  });

  it("a ranking by CU states the CU rule, as every output that shows CU does, the sum rule too", async () => {
    const byCu = topToText(await top(connection, { start: OCT_1, end: NOV_1, by: "CU", level: "account" }));
    expect(byCu.split("\n")[1]).toBe(
      "CU rule: aggregate (each level's CU per hour is max(Σmem/1024/4, Σvcpus/2) of its own totals)",
    );
    const summed = await top(connection, {
      start: OCT_1,
      end: NOV_1,
      by: "CU",
      level: "account",
      options: { cuRollup: "sum" },
    });
    expect(topToText(summed).split("\n")[1]).toBe(
      "CU rule: sum (each level's CU is the sum of its machines' CU; a machine's is max(Σmem/1024/4, Σvcpus/2))",
    );
  });

  it.each([
    [{ start: OCT_1, end: NOV_1 }, undefined, { start: SEP_1, end: OCT_1 }],
    [{ start: OCT_1, end: OCT_1 + 86400 * 3 }, undefined, { start: OCT_1 - 86400 * 3, end: OCT_1 }],
    // a month still running, held until Oct 27 10:00: Sep 1 to Sep 27 10:00
    [
      { start: OCT_1, end: NOV_1 },
      OCT_1 + 26 * 86400 + 10 * 3600,
      { start: SEP_1, end: SEP_1 + 26 * 86400 + 10 * 3600 },
    ],
    // Mar 31 held in full against February: all of February, never into March
    [
      { start: Date.UTC(2027, 2, 1) / 1000, end: Date.UTC(2027, 3, 1) / 1000 },
      Date.UTC(2027, 2, 31, 12) / 1000,
      { start: Date.UTC(2027, 1, 1) / 1000, end: Date.UTC(2027, 2, 1) / 1000 },
    ],
    // held to the month's end or beyond: the month before, whole
    [{ start: OCT_1, end: NOV_1 }, NOV_1, { start: SEP_1, end: OCT_1 }],
  ])("compares %j (held until %s) with %j", (period, heldUntil, previous) => {
    expect(previousPeriod(period.start, period.end, heldUntil)).toEqual(previous);
  });

  it(
    "compares a month still running with the same days of the month before, and says so",
    { timeout: 120_000 },
    async () => {
      // held until Oct 21 00:00: 20 days of October against Sep 1 to Sep 21, not all of September
      const running = await scenarioWarehouse({ ...SCENARIO, days: 50, addedAt: undefined, added: undefined });
      try {
        const ranking = await top(running, { start: OCT_1, end: NOV_1, by: "CU", limit: 50 });
        const sameDays = { start: SEP_1, end: SEP_1 + 20 * 86400 };
        expect(ranking.heldUntil).toBe(OCT_1 + 20 * 86400);
        expect(ranking.previous).toEqual(sameDays);
        expect(ranking.comparedWith).toBe("the same days of the month before");
        const given = await top(running, { start: OCT_1, end: NOV_1, by: "CU", limit: 50, previous: sameDays });
        expect(ranking.rows.map((r) => r.previous)).toEqual(given.rows.map((r) => r.previous));
        // steady machines: 20 days against 20 days, not against 30 (which read as −33% for every one)
        for (const r of ranking.rows) expect(Math.abs(r.change!)).toBeLessThan(0.1);
        expect(topToText(ranking).split("\n")[0]).toBe(
          `top 12 of 12 machines by CU (CU-hours), 2026-10-01T00:00:00Z to 2026-11-01T00:00:00Z (the month to date: hours held until 2026-10-21T00:00:00Z); ` +
            "change against the same days of the month before, 2026-09-01T00:00:00Z to 2026-09-21T00:00:00Z",
        );
      } finally {
        running.closeSync();
      }
    },
  );

  it("names the account and the cloud space of every row, as alerts do", async () => {
    const names = makeNames([
      { kind: "account", id: 1, name: "Acme" },
      { kind: "cloudspace", id: scenarioCloudspaceId(1, 1), name: "prod" },
      { kind: "machine", id: scenarioMachineId(1, 1, 1), name: "web-1" },
    ]);
    const machines = await top(connection, { start: OCT_1, end: NOV_1, by: "CU", limit: 50, options: { names } });
    const web = machines.rows.find((r) => r.machineId === scenarioMachineId(1, 1, 1))!;
    expect([web.name, web.accountName, web.cloudspaceName]).toEqual(["web-1", "Acme", "prod"]);
    const text = topToText(machines);
    expect(text).toMatch(
      new RegExp(
        `\\. machine ${scenarioMachineId(1, 1, 1)} \\(web-1\\) in cloud space ${scenarioCloudspaceId(1, 1)} \\(prod\\) of account 1 \\(Acme\\): `,
      ),
    );
    expect(text).toMatch(
      new RegExp(
        `\\. machine ${scenarioMachineId(1, 1, 2)} in cloud space ${scenarioCloudspaceId(1, 1)} \\(prod\\) of account 1 \\(Acme\\): `,
      ),
    );
    expect(topToCsv(machines).split("\r\n")[0]).toMatch(/,account_name,cloudspace_name$/);
    const spaces = await top(connection, {
      start: OCT_1,
      end: NOV_1,
      by: "CU",
      level: "cloudspace",
      options: { names },
    });
    expect(topToText(spaces)).toMatch(
      new RegExp(`\\. cloud space ${scenarioCloudspaceId(1, 1)} \\(prod\\) of account 1 \\(Acme\\): `),
    );
    const accounts = await top(connection, {
      start: OCT_1,
      end: NOV_1,
      by: "CU",
      level: "account",
      options: { names },
    });
    expect(topToText(accounts)).toMatch(/\. account 1 \(Acme\): /);
  });

  it("cloudunits top gives the library's figures", { timeout: 120_000 }, async () => {
    const db = join(dir, "w.duckdb");
    await scenarioWarehouse(SCENARIO, db);
    const prices = join(dir, "prices.json");
    writeFileSync(prices, JSON.stringify(PRICES_JSON));
    const now = "2026-11-20T00:00:00Z"; // the CLI's clock (CLOUDUNITS_TEST_NOW) and the library's nowEpoch
    const run = await runCli(
      ["top", "--db", db, "--month", "2026-10", "--prices", prices, "--level", "cloudspace", "--format", "json"],
      { CLOUDUNITS_TEST_NOW: now },
    );
    expect(run.code, run.stderr).toBe(0);
    const library = await top(connection, {
      start: OCT_1,
      end: NOV_1,
      by: "cost",
      level: "cloudspace",
      prices: PRICES,
      nowEpoch: Date.parse(now) / 1000,
    });
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(topToJson(library)));
  });
});
