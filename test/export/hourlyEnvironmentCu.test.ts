import ExcelJS from "exceljs";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/runCli.js";

// The environment's "CU allocated" is the Σ of its accounts' CU (what they are billed on; under
// `aggregate` more than the environment's own CU): on the period row, and on each hour's row of
// `--detail hourly` and of the workbook's Hourly sheet alike, where it was left empty.

let dir: string;
const period = ["--start", "2026-10-01", "--end", "2026-10-01T06:00Z"];
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-hourly-env-"));
  const run = await runCli([
    "generate",
    "--out",
    join(dir, "data.zip"),
    "--accounts",
    "3",
    "--spaces",
    "2",
    "--machines",
    "3",
    "--hours",
    "6",
    "--start",
    "2026-10-01",
  ]);
  expect(run.code, run.stderr).toBe(0);
}, 60_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Row {
  level: string;
  hour: string;
  own: number;
  allocated: string;
}

/** The rows of a table whose header has `level`, an hour column, `CU own` and `CU allocated`. */
function rowsOf(table: string[][]): Row[] {
  const [header, ...body] = table;
  const at = (prefix: string) => header!.findIndex((h) => h.startsWith(prefix));
  const [level, hour, own, allocated] = [at("level"), at("hour"), at("CU own"), at("CU allocated")];
  expect(
    [level, hour, own, allocated].every((i) => i >= 0),
    header!.join(),
  ).toBe(true);
  return body.map((r) => ({ level: r[level]!, hour: r[hour]!, own: Number(r[own]), allocated: r[allocated]! }));
}

/** Each hour: the environment's CU own and allocated, and the Σ of its accounts' CU. */
function perHour(rows: Row[]) {
  const hours = [...new Set(rows.map((r) => r.hour))];
  return hours.map((hour) => {
    const environment = rows.find((r) => r.level === "environment" && r.hour === hour)!;
    const accounts = rows.filter((r) => r.level === "account" && r.hour === hour).reduce((s, r) => s + r.own, 0);
    return { hour, own: environment.own, allocated: environment.allocated, accounts };
  });
}

describe("the environment's CU allocated, hour by hour", () => {
  it("--detail hourly CSV: each hour's environment row has the Σ of its accounts' CU; over the hours, the period row's", async () => {
    const csv = join(dir, "hourly.csv");
    const run = await runCli([
      "billing",
      join(dir, "data.zip"),
      ...period,
      "--format",
      "csv",
      "--detail",
      "hourly",
      "--out",
      csv,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const hours = perHour(
      rowsOf(
        readFileSync(csv, "utf8")
          .trim()
          .split("\r\n")
          .map((l) => l.split(",")),
      ),
    );
    expect(hours).toHaveLength(6);
    for (const h of hours)
      expect({ hour: h.hour, allocated: Number(h.allocated) }).toEqual({ hour: h.hour, allocated: h.accounts });
    // aggregate: the environment's own CU is less than its accounts' in some hour, so the two columns differ
    expect(hours.some((h) => h.own < h.accounts)).toBe(true);

    const whole = await runCli(["billing", join(dir, "data.zip"), ...period, "--format", "csv"]);
    const environment = rowsOf(
      whole.stdout
        .trim()
        .split("\r\n")
        .map((l) => l.split(","))
        .map((r, i) => (i === 0 ? r.map((h) => (h.startsWith("period_start") ? "hour" : h)) : r)),
    ).find((r) => r.level === "environment")!;
    expect(Number(environment.allocated)).toBe(hours.reduce((s, h) => s + h.accounts, 0));
  });

  it("the workbook's Hourly sheet (--hourly): the same figures, none empty", async () => {
    const xlsx = join(dir, "hourly.xlsx");
    const run = await runCli([
      "billing",
      join(dir, "data.zip"),
      ...period,
      "--format",
      "xlsx",
      "--hourly",
      "--out",
      xlsx,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(xlsx);
    const table: string[][] = [];
    book.getWorksheet("Hourly")!.eachRow((row) => {
      table.push(
        (row.values as unknown[])
          .slice(1)
          .map((v) => (v instanceof Date ? v.toISOString() : v === null || v === undefined ? "" : String(v))),
      );
    });
    const hours = perHour(rowsOf(table));
    expect(hours).toHaveLength(6);
    for (const h of hours)
      expect({ hour: h.hour, allocated: h.allocated === "" ? null : Number(h.allocated) }).toEqual({
        hour: h.hour,
        allocated: h.accounts,
      });
  });
});
