import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openWarehouse } from "../../src/store/openWarehouse.js";
import { overviewData } from "../../src/serve/overviewData.js";
import { overviewPage } from "../../src/serve/pages/overviewPage.js";
import { lagDuration, lagOf } from "../../src/forecast/warehouseLag.js";
import { runCli } from "../helpers/runCli.js";
import { DAY, HOUR, OCT_1, SEP_1, scenarioWarehouse } from "../helpers/scenarioWarehouse.js";

/** September 1 to October 21 held (the last hour 2026-10-21T23:00Z). */
const SCENARIO = { start: SEP_1, days: 51, accounts: 2, spaces: 1, machines: 2, seed: 5 };
const LAST_HOUR = OCT_1 + 21 * DAY - HOUR;
/** Three weeks and 9 hours after it: the warehouse is 21 days behind. */
const WEEKS_LATER = "2026-11-12T09:20:00Z";
/** A quarter of an hour after the hour after it: current. */
const CURRENT = "2026-10-22T00:15:00Z";
const BEHIND = "the warehouse holds hours up to 2026-10-21T23:00:00Z, 21 days behind";

let dir: string;
let db: string;
let budgets: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-lag-"));
  db = join(dir, "w.duckdb");
  await scenarioWarehouse(SCENARIO, db);
  budgets = join(dir, "budgets.yaml");
  writeFileSync(budgets, "budgets:\n  - environment: true\n    unit: CU\n    quantity: 1000000000\n");
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("how far behind the warehouse is", () => {
  it.each([
    [0, "0 h"],
    [3, "3 h"],
    [47, "47 h"],
    [48, "2 days"],
    [513, "21 days"],
  ])("reads %d hours behind as %s", (hours, text) => {
    expect(lagDuration(hours)).toBe(text);
  });

  it("counts whole hours from the end of the latest hour held to the current hour, behind beyond 3", () => {
    expect(lagOf(LAST_HOUR, LAST_HOUR + HOUR + 15 * 60)).toMatchObject({ lagHours: 0, behind: false });
    expect(lagOf(LAST_HOUR, LAST_HOUR + 4 * HOUR + 59 * 60)).toMatchObject({ lagHours: 3, behind: false });
    expect(lagOf(LAST_HOUR, LAST_HOUR + 5 * HOUR)).toMatchObject({ lagHours: 4, behind: true });
  });

  it(
    "`forecast` of a warehouse weeks behind says so first, in text and JSON; of a current one, nothing",
    { timeout: 120_000 },
    async () => {
      const text = await runCli(["forecast", "--db", db, "--month", "2026-10"], { CLOUDUNITS_TEST_NOW: WEEKS_LATER });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout.split("\n")[1]).toBe(
        `warning: ${BEHIND}: the month to date ends there and the rest is projected (sync it)`,
      );
      expect(text.stderr).toContain("CLOUDUNITS_TEST_NOW (a test setting)");
      const json = JSON.parse(
        (
          await runCli(["forecast", "--db", db, "--month", "2026-10", "--format", "json"], {
            CLOUDUNITS_TEST_NOW: WEEKS_LATER,
          })
        ).stdout,
      ) as { warehouse: unknown };
      expect(json.warehouse).toEqual({
        lastHour: "2026-10-21T23:00:00Z",
        currentHour: "2026-11-12T09:00:00Z",
        lagHours: 21 * 24 + 9,
        behind: true,
      });
      const current = await runCli(["forecast", "--db", db, "--month", "2026-10"], { CLOUDUNITS_TEST_NOW: CURRENT });
      expect(current.stdout).not.toContain("behind");
    },
  );

  it(
    "`forecast` of a month with no hour held refuses to project it: exit 3, saying what the warehouse holds and how far behind",
    { timeout: 120_000 },
    async () => {
      const run = await runCli(["forecast", "--db", db, "--month", "2026-11", "--format", "json"], {
        CLOUDUNITS_TEST_NOW: WEEKS_LATER,
      });
      expect(run.stdout).toBe("");
      expect(run.stderr.split("\n").at(-2)).toBe(
        `cloudunits: no hour of 2026-11 is held: ${BEHIND}; nothing to forecast (sync the warehouse, or forecast a month it holds)`,
      );
      expect(run.code).toBe(3);
    },
  );

  it(
    "`alerts` of a warehouse weeks behind raises it, exit 7, with its lag in the JSON",
    { timeout: 120_000 },
    async () => {
      const run = await runCli(["alerts", "--db", db, "--budgets", budgets, "--format", "json"], {
        CLOUDUNITS_TEST_NOW: WEEKS_LATER,
      });
      const printed = JSON.parse(run.stdout) as {
        warehouse: { lagHours: number };
        alerts: { id: string; type: string; message: string }[];
      };
      expect(printed.warehouse.lagHours).toBe(21 * 24 + 9);
      const behind = printed.alerts.filter((a) => a.type === "warehouse-behind");
      expect(behind.map((a) => a.id)).toEqual(["warehouse-behind:2026-10-21T23:00:00Z"]);
      expect(behind[0]!.message).toMatch(new RegExp(`^${BEHIND}: `));
      expect(run.code, run.stderr).toBe(7);
      const text = await runCli(["alerts", "--db", db, "--budgets", budgets], { CLOUDUNITS_TEST_NOW: WEEKS_LATER });
      expect(text.stdout).toContain(`warehouse-behind: ${BEHIND}: `);
    },
  );

  it("`top` of a warehouse weeks behind says so, in text and JSON", { timeout: 120_000 }, async () => {
    const text = await runCli(["top", "--db", db, "--month", "2026-10", "--limit", "2"], {
      CLOUDUNITS_TEST_NOW: WEEKS_LATER,
    });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`\nwarning: ${BEHIND}: the figures end there\n`);
    const json = JSON.parse(
      (
        await runCli(["top", "--db", db, "--month", "2026-10", "--format", "json"], {
          CLOUDUNITS_TEST_NOW: WEEKS_LATER,
        })
      ).stdout,
    ) as { warehouse: { behind: boolean; lastHour: string } };
    expect(json.warehouse).toMatchObject({ behind: true, lastHour: "2026-10-21T23:00:00Z" });
    const current = await runCli(["top", "--db", db, "--month", "2026-10"], { CLOUDUNITS_TEST_NOW: CURRENT });
    expect(current.stdout).not.toContain("behind");
  });

  it("the dashboard's overview says so above everything else", { timeout: 120_000 }, async () => {
    const store = await openWarehouse({ db });
    try {
      const page = overviewPage(await overviewData(store, {}, undefined, Date.parse(WEEKS_LATER) / 1000));
      expect(page).toContain(
        '<p class="lead" id="warehouse-behind"><span class="bad">The warehouse holds hours up to 2026-10-21T23:00:00Z, 21 days behind</span>',
      );
      expect(page.indexOf('id="warehouse-behind"')).toBeLessThan(page.indexOf('class="cards'));
      const current = overviewPage(await overviewData(store, {}, undefined, Date.parse(CURRENT) / 1000));
      expect(current).not.toContain('id="warehouse-behind"');
    } finally {
      store.close();
    }
  });
});
