import type { DuckDBConnection } from "@duckdb/node-api";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { alerts, alertsBody, FetchError, forecast, loadBudgets, notify, parseBudgets, parsePrices } from "../../src/internal.js";
import { scenarioCloudspaceId } from "../../src/generate/scenario.js";
import { runCli } from "../helpers/runCli.js";
import { startWebhook } from "../helpers/webhook.js";
import { DAY, HOUR, OCT_1, SEP_1, scenarioWarehouse } from "./scenarioWarehouse.js";

const PRICES_JSON = { currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } };
const PRICES = parsePrices(PRICES_JSON, "test prices");
/** Sep 1 to Oct 18 (noon): on Oct 18 a burst of 6 machines in account 2 (a CU anomaly, 6 new machines). */
const SCENARIO = {
  start: SEP_1, days: 47, accounts: 2, spaces: 1, machines: 3, seed: 3,
  planted: [{ kind: "burst" as const, accountId: 2, cloudspaceId: scenarioCloudspaceId(2, 1), firstMachineId: 99001, count: 6, from: OCT_1 + 16 * DAY + 6 * HOUR, hours: 30 }],
};
const AS_OF = SEP_1 + 47 * DAY;

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
    [{ budgets: [{ account: 1, amount: 5, unit: "CU", quantity: 3 }] }, /budgets\[0\]: give either amount, or unit and quantity, not both/],
    [{ budgets: [{ account: 1, unit: "XU", quantity: 3 }] }, /unit must be one of CU, SU, TU, NU/],
    [{ budgets: [{ account: 1, amount: -5 }] }, /amount must be a number above 0/],
    [{ budgets: [{ account: 1, amount: 5, thresholds: [0] }] }, /thresholds must be a list of percentages above 0/],
    [{ budgets: [{ account: 1, amount: 5, limit: 3 }] }, /unknown key limit/],
  ])("refuses %j, naming the file and the entry", (value, message) => {
    expect(() => parseBudgets(value, "budgets.yaml")).toThrow(message);
    expect(() => parseBudgets(value, "budgets.yaml")).toThrow(/^budgets\.yaml: /);
  });

  it("reads YAML with default thresholds, sorted", async () => {
    const file = join(dir, "b.yaml");
    writeFileSync(file, "thresholds: [100, 50]\nbudgets:\n  - account: 1\n    amount: 1000\n  - environment: true\n    unit: NU\n    quantity: 2\n    thresholds: [90]\n");
    expect(await loadBudgets(file)).toEqual([
      { accountId: 1, limit: { kind: "amount", amount: 1000 }, thresholds: [50, 100] },
      { accountId: null, limit: { kind: "quantity", unit: "NU", quantity: 2 }, thresholds: [90] },
    ]);
  });
});

describe("alerts", () => {
  it("raises each threshold crossed, by the month to date or by the forecast alone, with stable ids", { timeout: 120_000 }, async () => {
    const f = await forecast(connection, { month: "2026-10", prices: PRICES, asOf: AS_OF });
    const one = f.entries.find((e) => e.accountId === 1)!;
    const soFar = one.amount!.monthToDate.toNumber();
    const monthEnd = one.amount!.projected.toNumber();
    // a budget the forecast reaches 90% of: a threshold the month to date has passed, 85% by the forecast alone, 100% by neither
    const budget = monthEnd / 0.9;
    const passed = Math.floor((soFar / budget) * 100) - 1;
    const budgets = parseBudgets({ budgets: [{ account: 1, amount: budget, thresholds: [passed, 85, 100] }, { account: 2, unit: "CU", quantity: 1e9 }] });
    const report = await alerts(connection, { budgets, prices: PRICES });
    expect(report.asOf).toBe(AS_OF);
    expect(report.month).toBe("2026-10");
    const budgetAlerts = report.alerts.filter((a) => a.type === "budget");
    expect(budgetAlerts.map((a) => a.id)).toEqual([`budget:account:1:2026-10:amount:${passed}:actual`, "budget:account:1:2026-10:amount:85:forecast"]);
    expect(budgetAlerts[0]!.value).toBeCloseTo(soFar, 6);
    expect(budgetAlerts[1]!.value).toBeCloseTo(monthEnd, 6);
    // the burst: a CU anomaly in account 2's cloud space, its 6 machines new
    expect(report.alerts.some((a) => a.type === "anomaly" && a.metric === "CU" && a.cloudspaceId === scenarioCloudspaceId(2, 1) && a.direction === "up")).toBe(true);
    expect(report.alerts.filter((a) => a.type === "machine-new").length).toBe(6);
    const again = await alerts(connection, { budgets, prices: PRICES });
    expect(again.alerts.map((a) => a.id)).toEqual(report.alerts.map((a) => a.id));
    // as of the day before the burst, none of it
    const before = await alerts(connection, { budgets, prices: PRICES, asOf: OCT_1 + 16 * DAY });
    expect(before.alerts.filter((a) => a.type !== "budget")).toEqual([]);
  });

  it("refuses a budget of an unknown account, and a budget of an amount without prices", async () => {
    await expect(alerts(connection, { budgets: parseBudgets({ budgets: [{ account: 77, unit: "CU", quantity: 5 }] }) })).rejects.toThrow(/unknown account 77/);
    await expect(alerts(connection, { budgets: parseBudgets({ budgets: [{ account: 1, amount: 5 }] }) })).rejects.toThrow(/needs a price list/);
  });

  it("cloudunits alerts prints them, posts the JSON to --notify and exits 7; without any, exits 0", { timeout: 180_000 }, async () => {
    const db = join(dir, "w.duckdb");
    await scenarioWarehouse(SCENARIO, db);
    const prices = join(dir, "prices.json");
    writeFileSync(prices, JSON.stringify(PRICES_JSON));
    const budgets = join(dir, "budgets.yaml");
    writeFileSync(budgets, "budgets:\n  - account: 1\n    amount: 1\n");
    const hook = await startWebhook(200);
    try {
      const run = await runCli(["alerts", "--db", db, "--budgets", budgets, "--prices", prices, "--notify", `${hook.url}/hooks/T0/B0/s3cr3t-token?key=qu3ry-secret`, "--format", "json"]);
      expect(run.code, run.stderr).toBe(7);
      const printed = JSON.parse(run.stdout) as { alerts: { id: string; type: string }[] };
      expect(printed.alerts.map((a) => a.id)).toContain("budget:account:1:2026-10:amount:100:actual");
      expect(hook.bodies).toEqual([run.stdout.trim()].map((s) => JSON.stringify(JSON.parse(s))));
      expect(run.stderr).toContain(`${printed.alerts.length} alerts are active`);
      const quiet = join(dir, "quiet.yaml");
      writeFileSync(quiet, "budgets:\n  - environment: true\n    amount: 1000000000\n");
      const cleanDb = join(dir, "clean.duckdb");
      await scenarioWarehouse({ ...SCENARIO, planted: [] }, cleanDb);
      const none = await runCli(["alerts", "--db", cleanDb, "--budgets", quiet, "--prices", prices]);
      expect(none.stdout).toMatch(/: 0 active\n$/);
      expect(none.code, none.stderr).toBe(0);
    } finally {
      hook.server.close();
    }
  });
});

describe("notify", () => {
  const secretUrl = (base: string) => `${base.replace("http://", "http://hookuser:hookpass@")}/services/T0/B0/s3cr3t-token?sig=qu3ry-secret`;
  const noSecret = (message: string) => {
    for (const secret of ["s3cr3t-token", "qu3ry-secret", "hookuser", "hookpass", "/services"]) expect(message).not.toContain(secret);
  };

  it("posts the JSON, with the address's user info as basic auth", async () => {
    const hook = await startWebhook(204);
    try {
      await notify(secretUrl(hook.url), { alerts: [1] });
      expect(hook.bodies).toEqual(['{"alerts":[1]}']);
      expect(hook.auth).toEqual([`Basic ${Buffer.from("hookuser:hookpass").toString("base64")}`]);
    } finally {
      hook.server.close();
    }
  });

  it.each([
    [500, /answered 500 \(not accepted\)/],
    [302, /answered 302 \(a redirect, not followed/],
  ])("fails on an answer %d, naming the host only", async (status, message) => {
    const target = await startWebhook(200);
    const hook = await startWebhook(status, `${target.url}/elsewhere`);
    try {
      const error = await notify(secretUrl(hook.url), { a: 1 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FetchError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toContain(`http://127.0.0.1:${new URL(hook.url).port}/…`);
      noSecret((error as Error).message);
      noSecret(JSON.stringify(error) + String((error as Error).stack));
      expect(target.bodies).toEqual([]); // the redirect was not followed
    } finally {
      hook.server.close();
      target.server.close();
    }
  });

  it("gives up on a webhook that does not answer within the timeout", async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/s3cr3t-token`;
      const error = await notify(url, alertsBody({ asOf: AS_OF, month: "2026-10", windowHours: 24, alerts: [], forecast: undefined as never }), { timeoutMs: 300 }).catch((e: unknown) => e);
      expect((error as FetchError).code).toBe("NOTIFY_TIMEOUT");
      noSecret((error as Error).message);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });

  it("refuses an address that is not http(s)", async () => {
    await expect(notify("ftp://example/x", {})).rejects.toThrow(/use http:\/\/ or https:\/\//);
  });
});

