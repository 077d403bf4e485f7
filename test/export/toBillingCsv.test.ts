import { describe, expect, it } from "vitest";
import { readFile, readdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { plainNumber } from "../../src/export/plainNumber.js";
import { accountHour, disk, HOUR, memoryWarehouse, OCT_1, vm } from "../helpers/warehouse.js";
import { guardFormula, hourlyLines, makeNames, parsePrices, toBillingCsv, writeAtomic } from "../../src/internal.js";
import { reportFrom } from "../helpers/billFrom.js";

async function text(chunks: AsyncIterable<string>): Promise<string> {
  let out = "";
  for await (const c of chunks) out += c;
  return out;
}

const hours = [0, 1].map((h) =>
  accountHour(7, OCT_1 + h * HOUR, { 11: [vm(1, { mem: 5120, vcpus: 2, disks: [disk(1, 512)] })] }),
);
const names = makeNames([
  { kind: "machine", id: 1, name: '=HYPERLINK("x")' },
  { kind: "account", id: 7, name: "Acme, Inc." },
]);
const params = { start: OCT_1, end: OCT_1 + 2 * HOUR, accountId: 7 };
const ALLOCATED =
  "amount due (EUR),allocated cost (EUR; the account's lines split by largest remainder; adds up to them exactly)";

describe("billing CSV", () => {
  it("has a header with units and one row per entity and level, numbers unformatted", async () => {
    const connection = await memoryWarehouse(hours);
    const report = await reportFrom(connection, params, { names });
    const csv = await text(toBillingCsv(report));
    expect(csv.split("\r\n")).toEqual([
      "level,account_id,cloudspace_id,machine_id,name,period_start (UTC),period_end (UTC exclusive),sample_hours,cu_rollup,CU own (CU-hours; aggregate rule),CU allocated (CU-hours; showback),SU (SU-hours),TU (TU-hours),NU (TiB transferred)",
      'account,7,,,"Acme, Inc.",2026-10-01T00:00:00Z,2026-10-01T02:00:00Z,2,aggregate,2.5,2.5,1,0,0',
      "cloudspace,7,11,,,2026-10-01T00:00:00Z,2026-10-01T02:00:00Z,2,aggregate,2.5,2.5,1,0,0",
      `machine,7,11,1,"'=HYPERLINK(""x"")",2026-10-01T00:00:00Z,2026-10-01T02:00:00Z,2,aggregate,2.5,2.5,1,0,0`,
      "",
    ]);
  });

  it("with a price list, shows unit prices, amounts rounded half-even, and one total: the amount due, the sum of the rounded lines", async () => {
    const connection = await memoryWarehouse(hours);
    // CU: 2.5 CU-hours × 0.005 = 0.0125 → 0.01; SU: 1 SU-hour × 0.005 = 0.005 → 0.00 (half-even); amount due 0.01 + 0.00.
    const prices = parsePrices({ currency: "EUR", prices: { CU: "0.005", SU: "0.005" } });
    const report = await reportFrom(connection, params, {}, { prices });
    const [header, account, cloudspace, machine] = (await text(toBillingCsv(report))).split("\r\n");
    expect(
      header!.endsWith(
        `,CU unit price (EUR per CU-hour),CU amount (EUR),CU allocated cost (EUR),SU unit price (EUR per SU-hour),SU amount (EUR),SU allocated cost (EUR),${ALLOCATED}`,
      ),
    ).toBe(true);
    expect(header).not.toMatch(/total|rounded/);
    // The account's money is its amounts and amount due; below it, the same money is allocated cost, never an amount.
    expect(account!.endsWith(",0.005,0.01,,0.005,0.00,,0.01,")).toBe(true);
    expect(cloudspace!.endsWith(",0.005,,0.01,0.005,,0.00,,0.01")).toBe(true);
    expect(machine!.endsWith(",0.005,,0.01,0.005,,0.00,,0.01")).toBe(true);
  });

  it("a price per month shows the quantity in months beside it, so quantity × unit price = amount", async () => {
    const connection = await memoryWarehouse(hours);
    // 1 SU-hour = 1/720 SU-month; × 720 per SU-month = 1.00.
    const prices = parsePrices({ currency: "EUR", prices: { SU: { perMonth: 720 } } });
    const report = await reportFrom(connection, params, {}, { prices });
    const [header, account] = (await text(toBillingCsv(report))).split("\r\n");
    expect(
      header!.endsWith(
        `,SU billed (SU-months),SU unit price (EUR per SU-month),SU amount (EUR),SU allocated cost (EUR),${ALLOCATED}`,
      ),
    ).toBe(true);
    expect(account!.endsWith(`,${1 / 720},720,1.00,,1.00,`)).toBe(true);
  });

  it("hourly detail has one row per entity, level and hour", async () => {
    const connection = await memoryWarehouse(hours);
    const report = await reportFrom(connection, params);
    const lines = (await text(toBillingCsv(report, { hourly: hourlyLines(connection, params) }))).trim().split("\r\n");
    expect(lines[0]).toContain("hour (UTC)");
    expect(lines.slice(1).map((l) => l.split(",").slice(0, 6).join(","))).toEqual([
      "account,7,,,,2026-10-01T00:00:00Z",
      "cloudspace,7,11,,,2026-10-01T00:00:00Z",
      "machine,7,11,1,,2026-10-01T00:00:00Z",
      "account,7,,,,2026-10-01T01:00:00Z",
      "cloudspace,7,11,,,2026-10-01T01:00:00Z",
      "machine,7,11,1,,2026-10-01T01:00:00Z",
    ]);
  });

  it("--excel starts with a UTF-8 byte order mark", async () => {
    const connection = await memoryWarehouse(hours);
    const csv = await text(toBillingCsv(await reportFrom(connection, params), { excel: true }));
    expect(csv.startsWith("\uFEFFlevel,")).toBe(true);
  });

  it.each([
    { value: "=1+1", expected: "'=1+1" },
    { value: "+1", expected: "'+1" },
    { value: "-1", expected: "'-1" },
    { value: "@SUM(A1)", expected: "'@SUM(A1)" },
    { value: "web-01", expected: "web-01" },
  ])("guards $value against formula injection", ({ value, expected }) => {
    expect(guardFormula(value)).toBe(expected);
  });

  it.each([
    { value: 1e-7, expected: "0.0000001" },
    { value: 1.5e21, expected: "1500000000000000000000" },
    { value: 0.1 + 0.2, expected: "0.30000000000000004" },
    { value: -2.5e-8, expected: "-0.000000025" },
    { value: 42, expected: "42" },
  ])("writes $value as $expected", ({ value, expected }) => {
    expect(plainNumber(value)).toBe(expected);
  });

  it("writes files atomically: only the final file remains", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cu-csv-"));
    await writeAtomic(
      join(dir, "out.csv"),
      (async function* () {
        yield "a,";
        yield "b\r\n";
      })(),
    );
    expect(await readFile(join(dir, "out.csv"), "utf8")).toBe("a,b\r\n");
    expect(await readdir(dir)).toEqual(["out.csv"]);
  });
});

describe("hourly billing CSV with a price list", () => {
  it("carries quantities only (amounts per hour would be rounded per hour)", async () => {
    const connection = await memoryWarehouse(hours);
    const prices = parsePrices({ currency: "EUR", prices: { CU: "0.005" } });
    const report = await reportFrom(connection, params, {}, { prices });
    const header = (await text(toBillingCsv(report, { hourly: hourlyLines(connection, params) }))).split("\r\n")[0]!;
    expect(header).not.toContain("EUR");
    expect(header).toContain("CU own (CU-hours; aggregate rule)");
  });
});

describe("billing CSV of an environment under the aggregate rule", () => {
  it("the environment's CU allocated is the accounts' sum, beside its own (smaller) CU; amount due is only on accounts and the environment", async () => {
    // Account 7: 8 GB / 1 vCPU (2 CU); account 8: 2 GB / 4 vCPUs (2 CU); the environment's own CU: max(10/4, 5/2) = 2.5, not 4.
    const connection = await memoryWarehouse([
      accountHour(7, OCT_1, { 11: [vm(1, { mem: 8192, vcpus: 1 })] }),
      accountHour(8, OCT_1, { 21: [vm(2, { mem: 2048, vcpus: 4 })] }),
    ]);
    const prices = parsePrices({ currency: "EUR", prices: { CU: "1" } });
    const report = await reportFrom(connection, { start: OCT_1, end: OCT_1 + HOUR }, {}, { prices });
    const [header, ...rows] = (await text(toBillingCsv(report)))
      .trim()
      .split("\r\n")
      .map((r) => r.split(","));
    const at = (name: string) => header!.findIndex((h) => h.startsWith(name));
    const cells = (level: string, name: string) => rows.filter((r) => r[0] === level).map((r) => r[at(name)]);
    expect(cells("environment", "CU own")).toEqual(["2.5"]);
    expect(cells("environment", "CU allocated")).toEqual(["4"]);
    expect(cells("account", "CU allocated")).toEqual(["2", "2"]);
    expect(cells("environment", "amount due (EUR)")).toEqual(["4.00"]);
    expect(cells("account", "amount due (EUR)")).toEqual(["2.00", "2.00"]);
    expect([...cells("cloudspace", "amount due (EUR)"), ...cells("machine", "amount due (EUR)")]).toEqual([
      "",
      "",
      "",
      "",
    ]);
    expect([...cells("cloudspace", "allocated cost"), ...cells("machine", "allocated cost")]).toEqual([
      "2.00",
      "2.00",
      "2.00",
      "2.00",
    ]);
  });
});
