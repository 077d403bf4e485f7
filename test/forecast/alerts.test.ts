import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alerts,
  forecast,
  loadBudgets,
  makeNames,
  parseBudgets,
  parsePrices,
  type AnomalyAlert,
  type BudgetAlert,
  type MachineAlert,
} from "../../src/internal.js";
import { moneyText, percentText, quantityText } from "../../src/forecast/alerts.js";
import { scenarioCloudspaceId } from "../../src/generate/scenario.js";
import { runCli } from "../helpers/runCli.js";
import { startWebhook } from "../helpers/webhook.js";
import { DAY, HOUR, OCT_1, SEP_1, scenarioWarehouse } from "../helpers/scenarioWarehouse.js";

const PRICES_JSON = { currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } };
const PRICES = parsePrices(PRICES_JSON, "test prices");
/** Sep 1 to Oct 18 (noon): on Oct 18 a burst of 6 machines in account 2 (a CU anomaly, 6 new machines). */
const SCENARIO = {
  start: SEP_1,
  days: 47,
  accounts: 2,
  spaces: 1,
  machines: 3,
  seed: 3,
  planted: [
    {
      kind: "burst" as const,
      accountId: 2,
      cloudspaceId: scenarioCloudspaceId(2, 1),
      firstMachineId: 99001,
      count: 6,
      from: OCT_1 + 16 * DAY + 6 * HOUR,
      hours: 30,
    },
  ],
};
const AS_OF = SEP_1 + 47 * DAY;
/** A quarter of an hour after the hour after the last one held: the warehouse is current (the CLI's clock, `CLOUDUNITS_TEST_NOW`). */
const NOW = { CLOUDUNITS_TEST_NOW: "2026-10-18T00:15:00Z" };

let connection: DuckDBConnection;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-alerts-"));
  connection = await scenarioWarehouse(SCENARIO);
}, 120_000);
afterAll(() => {
  connection?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

describe("budgets files", () => {
  it.each([
    [{}, /expected \{ budgets: \[ \.\.\. \] \}/],
    [{ budgets: [{ amount: 5 }] }, /budgets\[0\]: give either account: N or environment: true/],
    [
      { budgets: [{ account: 1, amount: 5, unit: "CU", quantity: 3 }] },
      /budgets\[0\]: give either amount, or unit and quantity, not both/,
    ],
    [{ budgets: [{ account: 1, unit: "XU", quantity: 3 }] }, /unit must be one of CU, SU, TU, NU/],
    [{ budgets: [{ account: 1, amount: -5 }] }, /amount must be a number of at least 0\.000001/],
    // a budget too small for any month to keep: its percentages would leave the numbers ("Infinity%")
    [{ budgets: [{ account: 1, amount: 1e-320 }] }, /budgets\[0\]: amount must be a number of at least 0\.000001/],
    [
      { budgets: [{ account: 1, unit: "NU", quantity: 1e-9 }] },
      /budgets\[0\]: quantity must be a number of at least 0\.000001/,
    ],
    [{ budgets: [{ account: 1, amount: 5, thresholds: [0] }] }, /thresholds must be a list of percentages above 0/],
    [{ budgets: [{ account: 1, amount: 5, limit: 3 }] }, /unknown key limit/],
  ])("refuses %j, naming the file and the entry", (value, message) => {
    expect(() => parseBudgets(value, "budgets.yaml")).toThrow(message);
    expect(() => parseBudgets(value, "budgets.yaml")).toThrow(/^budgets\.yaml: /);
  });

  it("refuses more than 10,000 budgets", () => {
    const value = { budgets: Array.from({ length: 10_001 }, (_, i) => ({ account: i, amount: 5 })) };
    expect(() => parseBudgets(value, "budgets.json")).toThrow(
      /^budgets\.json: 10001 budgets, more than the 10000 a budgets file may hold$/,
    );
  });

  it("refuses a budgets file over 512 KiB before parsing it, naming its size", async () => {
    const file = join(dir, "huge.yaml");
    writeFileSync(file, `budgets:\n${"  - account: 1\n    amount: 1000\n".repeat(20_000)}`);
    const started = performance.now();
    await expect(loadBudgets(file)).rejects.toThrow(
      `${file}: 625 KiB is more than a budgets file may be (at most 512 KiB)`,
    );
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it("reads YAML with default thresholds, sorted", async () => {
    const file = join(dir, "b.yaml");
    writeFileSync(
      file,
      "thresholds: [100, 50]\nbudgets:\n  - account: 1\n    amount: 1000\n  - environment: true\n    unit: NU\n    quantity: 2\n    thresholds: [90]\n",
    );
    expect(await loadBudgets(file)).toEqual([
      { accountId: 1, limit: { kind: "amount", amount: 1000 }, thresholds: [50, 100] },
      { accountId: null, limit: { kind: "quantity", unit: "NU", quantity: 2 }, thresholds: [90] },
    ]);
  });
});

describe("alerts", () => {
  it(
    "raises one alert per budget, at its highest threshold crossed by the month to date or, higher, by the forecast alone",
    { timeout: 120_000 },
    async () => {
      const f = await forecast(connection, { month: "2026-10", prices: PRICES, asOf: AS_OF });
      const one = f.entries.find((e) => e.accountId === 1)!;
      const soFar = one.amount!.monthToDate.toNumber();
      const monthEnd = one.amount!.projected.toNumber();
      // a budget the forecast reaches 90% of: two thresholds the month to date has passed, 85% by the forecast alone, 100% by neither
      const budget = monthEnd / 0.9;
      const passed = Math.floor((soFar / budget) * 100) - 1;
      // account 2's: two thresholds passed by the month to date, none higher by the forecast
      const cu = f.entries.find((e) => e.accountId === 2)!;
      const quantity = cu.projected.CU * 10;
      const budgets = parseBudgets({
        budgets: [
          { account: 1, amount: budget, thresholds: [passed - 1, passed, 85, 100] },
          { account: 2, unit: "CU", quantity, thresholds: [1, 2, 50] },
        ],
      });
      const report = await alerts(connection, { budgets, prices: PRICES });
      expect(report.asOf).toBe(AS_OF);
      expect(report.month).toBe("2026-10");
      const budgetAlerts = report.alerts.filter((a): a is BudgetAlert => a.type === "budget");
      expect(budgetAlerts.map((a) => a.id)).toEqual([
        `budget:account:1:2026-10:amount=${budget}:85:forecast`,
        `budget:account:2:2026-10:CU=${quantity}:2:actual`,
      ]);
      expect(budgetAlerts[0]!.value).toBeCloseTo(monthEnd, 6);
      expect(budgetAlerts[0]!.monthToDate).toBeCloseTo(soFar, 6);
      expect(budgetAlerts[0]!.message).toContain(`; month to date ${moneyText(soFar)} EUR (`);
      expect(budgetAlerts[0]!.message).toContain(` budget of ${moneyText(budget)} EUR (threshold 85%)`);
      expect(budgetAlerts[1]!.value).toBeCloseTo(cu.monthToDate.CU, 6);
      // the burst: a CU anomaly in account 2's cloud space, its 6 machines new
      expect(
        report.alerts.some(
          (a) =>
            a.type === "anomaly" &&
            a.metric === "CU" &&
            a.cloudspaceId === scenarioCloudspaceId(2, 1) &&
            a.direction === "up",
        ),
      ).toBe(true);
      expect(report.alerts.filter((a) => a.type === "machine-new").length).toBe(6);
      const again = await alerts(connection, { budgets, prices: PRICES });
      expect(again.alerts.map((a) => a.id)).toEqual(report.alerts.map((a) => a.id));
      // as of the day before the burst, none of it
      const before = await alerts(connection, { budgets, prices: PRICES, asOf: OCT_1 + 16 * DAY });
      expect(before.alerts.filter((a) => a.type !== "budget")).toEqual([]);
    },
  );

  it(
    "gives the same alerts when the warehouse is read for anomalies an account at a time (a warehouse too large for one pass)",
    { timeout: 120_000 },
    async () => {
      const budgets = parseBudgets({
        budgets: [
          { account: 1, amount: 10 },
          { environment: true, unit: "CU", quantity: 100 },
        ],
      });
      const together = await alerts(connection, { budgets, prices: PRICES });
      const apart = await alerts(connection, { budgets, prices: PRICES, maxEntityHours: 0 });
      expect(together.alerts.filter((a) => a.type !== "budget").length).toBeGreaterThan(6);
      expect(apart).toEqual(together);
    },
  );

  it(
    "gives two budgets of one account two ids, and one alert for two budgets alike",
    { timeout: 120_000 },
    async () => {
      const budgets = parseBudgets({
        budgets: [
          { account: 1, amount: 10 },
          { account: 1, amount: 30 },
          { account: 1, amount: 30, thresholds: [80, 100] },
        ],
      });
      const report = await alerts(connection, { budgets, prices: PRICES });
      expect(report.alerts.filter((a) => a.type === "budget").map((a) => a.id)).toEqual([
        "budget:account:1:2026-10:amount=10:100:actual",
        "budget:account:1:2026-10:amount=30:100:actual",
      ]);
    },
  );

  it(
    "gives percents rounded for people in text, to 2 decimals in JSON, never more than they are",
    { timeout: 120_000 },
    async () => {
      const budgets = parseBudgets({
        budgets: [
          { account: 1, amount: 7 },
          { environment: true, unit: "TU", quantity: 1e6 },
        ],
      });
      const report = await alerts(connection, { budgets, prices: PRICES });
      for (const a of report.alerts.filter((x): x is BudgetAlert => x.type === "budget")) {
        expect(a.percent).toBe(Math.round((a.value / a.budget) * 10_000) / 100);
        expect(String(a.percent)).toMatch(/^\d+(\.\d\d?)?$/);
        expect(a.message).toContain(` is ${percentText((a.value / a.budget) * 100)} of its 2026-10 budget`);
      }
    },
  );

  it.each([
    [97.12799999999999, "97.1%"],
    [79.96, "79.9%"], // below a threshold of 80, never shown as 80
    [99.99, "99.9%"],
    [100, "100%"],
    [4471.9, "4,471%"],
    [31283.4, "31,283%"],
    [0.04, "0%"],
    [50, "50%"],
  ])("shows %s percent as %s", (percent, text) => {
    expect(percentText(percent)).toBe(text);
  });

  it.each([
    [2347.125, "2,347.13"], // to the cent, as a statement gives it (2347.125 is 2347.125 exactly in binary: rounded up)
    [2500, "2,500.00"],
    [1234567.891, "1,234,567.89"],
    [99.5, "99.50"],
    [0.07, "0.07"],
    [-1500.2, "-1,500.20"],
  ])("shows an amount of %s as %s", (amount, text) => {
    expect(moneyText(amount)).toBe(text);
  });

  it.each([
    [25488.5, "25,489"], // whole from 100 on, grouped: the customer counts the digits no more
    [1234567, "1,234,567"],
    [100, "100"],
    [99.5, "99.50"],
    [1.234, "1.23"],
    [0.001234, "0.00123"],
  ])("shows a quantity of %s as %s", (quantity, text) => {
    expect(quantityText(quantity)).toBe(text);
  });

  it(
    "names every level once, with its names, and gives cost anomalies their currency",
    { timeout: 120_000 },
    async () => {
      const names = makeNames([
        { kind: "account", id: 2, name: "Beta" },
        { kind: "cloudspace", id: scenarioCloudspaceId(2, 1), name: "prod" },
        { kind: "machine", id: 99001, name: "burst-1" },
      ]);
      const report = await alerts(connection, { budgets: [], prices: PRICES, options: { names } });
      const anomalies = report.alerts.filter((a): a is AnomalyAlert => a.type === "anomaly");
      const account = anomalies.find((a) => a.level === "account" && a.accountId === 2 && a.metric === "CU")!;
      expect(account.message).toMatch(/^account 2 \(Beta\): CU up to /);
      expect(account.message).not.toContain("of account");
      const space = anomalies.find((a) => a.level === "cloudspace" && a.metric === "CU")!;
      expect(space.message).toMatch(
        new RegExp(`^cloud space ${scenarioCloudspaceId(2, 1)} \\(prod\\) of account 2 \\(Beta\\): CU up to `),
      );
      const cost = anomalies.find((a) => a.metric === "cost")!;
      expect(cost.unit).toBe("EUR");
      expect(cost.message).toMatch(
        /: cost (up|down) to [\d.,]+ EUR (in an hour|per hour that day), ([\d.,]+× its baseline of|from) [\d.,]+ EUR, since /,
      );
      const machine = report.alerts.find((a): a is MachineAlert => a.type === "machine-new" && a.machineId === 99001)!;
      expect(machine.message).toMatch(
        new RegExp(
          `^machine 99001 \\(burst-1\\) in cloud space ${scenarioCloudspaceId(2, 1)} \\(prod\\) of account 2 \\(Beta\\): new since `,
        ),
      );
      expect([machine.accountName, machine.cloudspaceName]).toEqual(["Beta", "prod"]);
    },
  );

  it("refuses a budget of an unknown account, and a budget of an amount without prices", async () => {
    await expect(
      alerts(connection, { budgets: parseBudgets({ budgets: [{ account: 77, unit: "CU", quantity: 5 }] }) }),
    ).rejects.toThrow(/unknown account 77/);
    await expect(
      alerts(connection, { budgets: parseBudgets({ budgets: [{ account: 1, amount: 5 }] }) }),
    ).rejects.toThrow(/needs a price list/);
  });

  describe("cloudunits alerts", () => {
    let db: string;
    let prices: string;
    let budgets: string;
    beforeAll(async () => {
      db = join(dir, "w.duckdb");
      await scenarioWarehouse(SCENARIO, db);
      prices = join(dir, "prices.json");
      writeFileSync(prices, JSON.stringify(PRICES_JSON));
      budgets = join(dir, "budgets.yaml");
      writeFileSync(budgets, "budgets:\n  - account: 1\n    amount: 1\n");
    }, 120_000);

    it("prints them, posts the JSON to --notify and exits 7; without any, exits 0", { timeout: 180_000 }, async () => {
      const hook = await startWebhook(200);
      try {
        const run = await runCli(
          [
            "alerts",
            "--db",
            db,
            "--budgets",
            budgets,
            "--prices",
            prices,
            "--notify",
            `${hook.url}/hooks/T0/B0/s3cr3t-token?key=qu3ry-secret`,
            "--format",
            "json",
          ],
          NOW,
        );
        expect(run.code, run.stderr).toBe(7);
        const printed = JSON.parse(run.stdout) as { alerts: { id: string; type: string }[] };
        expect(printed.alerts.map((a) => a.id)).toContain("budget:account:1:2026-10:amount=1:100:actual");
        expect(hook.bodies).toEqual([run.stdout.trim()].map((s) => JSON.stringify(JSON.parse(s))));
        expect(run.stderr).toContain(`${printed.alerts.length} alerts are active`);
        const quiet = join(dir, "quiet.yaml");
        writeFileSync(quiet, "budgets:\n  - environment: true\n    amount: 1000000000\n");
        const cleanDb = join(dir, "clean.duckdb");
        await scenarioWarehouse({ ...SCENARIO, planted: [] }, cleanDb);
        const none = await runCli(["alerts", "--db", cleanDb, "--budgets", quiet, "--prices", prices], NOW);
        expect(none.stdout).toMatch(/: 0 active\n$/);
        expect(none.code, none.stderr).toBe(0);
      } finally {
        hook.server.close();
      }
    });

    it(
      "still exits 7 when the webhook fails, saying the alerts were not posted and why",
      { timeout: 180_000 },
      async () => {
        const hook = await startWebhook(500);
        try {
          const run = await runCli(
            [
              "alerts",
              "--db",
              db,
              "--budgets",
              budgets,
              "--prices",
              prices,
              "--notify",
              `${hook.url}/hooks/s3cr3t-token`,
            ],
            NOW,
          );
          expect(run.code, run.stderr).toBe(7);
          expect(run.stdout).toContain("[budget:account:1:2026-10:amount=1:100:actual]");
          // the line before it says the clock is the test's
          expect(run.stderr.trim().split("\n").at(-1)).toMatch(
            /^cloudunits: \d+ alerts are active \(listed above\); they were not posted: the webhook at http:\/\/127\.0\.0\.1:\d+\/… answered 500 \(not accepted\)$/,
          );
          expect(run.stderr).not.toContain("s3cr3t-token");
        } finally {
          hook.server.close();
        }
      },
    );

    it(
      "refuses a --notify address with a malformed %-escape: exit 2, one line, before any work",
      { timeout: 60_000 },
      async () => {
        const run = await runCli([
          "alerts",
          "--db",
          join(dir, "absent.duckdb"),
          "--budgets",
          budgets,
          "--notify",
          "http://us%zzer:pw@127.0.0.1:9/hook",
        ]);
        expect(run.code).toBe(2);
        expect(run.stderr).toBe(
          "cloudunits: bad --notify address: its user name or password holds a malformed %-escape (write a % sign as %25)\n",
        );
      },
    );
  });
});
