import { it } from "vitest";
import { memoryWarehouse } from "../helpers/warehouse.js";
import { scenarioHours, scenarioMachineId, scenarioCloudspaceId } from "../../src/generate/scenario.js";
import { anomalies } from "../../src/forecast/anomalies.js";
import { usageSeries } from "../../src/forecast/usageSeries.js";
import { parsePrices } from "../../src/billing/prices.js";

it("scratch", { timeout: 300000 }, async () => {
  const start = Date.UTC(2026, 8, 1) / 1000;
  const oct = Date.UTC(2026, 9, 1) / 1000;
  const H = 3600;
  const planted = [
    { kind: "traffic", accountId: 1, machineId: scenarioMachineId(1, 1, 2), from: oct + 10 * 86400 + 14 * H, hours: 4, factor: 15 },
    { kind: "disk", accountId: 2, machineId: scenarioMachineId(2, 2, 1), from: oct + 12 * 86400 + 9 * H, factor: 3 },
    { kind: "burst", accountId: 2, cloudspaceId: scenarioCloudspaceId(2, 1), firstMachineId: 99001, count: 6, from: oct + 16 * 86400, hours: 24 },
    { kind: "account-traffic", accountId: 1, from: oct + 20 * 86400 + 3 * H, hours: 12, factor: 0.05 },
  ] as const;
  const c = await memoryWarehouse([...scenarioHours({ start, days: 61, accounts: 2, spaces: 2, machines: 4, seed: 1, weekdayMachines: 2, planted })]);
  const prices = parsePrices({ currency: "EUR", prices: { CU: 0.01, SU: { perMonth: 40 }, TU: 0.001, NU: 20 } }, "p");
  let t = performance.now();
  await usageSeries(c, { start: oct - 14 * 86400, end: oct + 31 * 86400 }, ["account", "cloudspace", "machine"], {}, prices);
  console.log("series", performance.now() - t);
  t = performance.now();
  const an = await anomalies(c, { start: oct, end: Date.UTC(2026, 10, 1) / 1000, prices });
  console.log("an", performance.now() - t, an.scored, an.flagged, an.anomalies.length, an.changes.length);
  for (const a of an.anomalies) console.log(a.id, a.direction, a.value, a.baseline, a.score, a.points);
  for (const a of an.changes) console.log(a.id);
});
