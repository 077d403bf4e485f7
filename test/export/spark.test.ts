// The Parquet export and the FOCUS file read by Apache Spark, as a provider with more than one
// machine reads them: docs/parquet.md's Spark SQL run as written (the location replaced by the
// export's folder), its billing query compared with `cloudunits billing`, partition pruning read
// off Spark's plan, and the FOCUS file's types and totals. One Spark session runs every step.
import { DuckDBInstance } from "@duckdb/node-api";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeWith } from "../helpers/prerequisites.js";
import { runCli } from "../helpers/runCli.js";
import { resultOf, runSpark, type SparkAnswer, type SparkStep } from "../helpers/spark.js";

const DOC = readFileSync(join(import.meta.dirname, "../../docs/parquet.md"), "utf8");
const HOUR = 3600;
const START = Date.UTC(2026, 9, 31, 12) / 1000; // 2026-10-31T12:00Z: the period crosses into November
const END = START + 30 * HOUR;
const NOVEMBER = { start: Date.UTC(2026, 10, 1) / 1000, end: Date.UTC(2026, 11, 1) / 1000 };
/** The price list billed here, the one docs/parquet.md's `prices` view writes out: CU's price changes on 1 November at 06:00. */
const PRICES = `currency: EUR
prices:
  CU: [0.05, { from: 2026-11-01T06:00Z, price: 0.07 }]
  SU: { perMonth: 40 }
  TU: 0.013
  NU: 20
`;
const TABLES = [
  "account_hours",
  "cloudspaces",
  "machines",
  "gateways",
  "disks",
  "nics",
  "machine_facts",
  "gateway_facts",
];

/** The ```sql block of the doc's section headed `heading`, as statements (split at a `;` that ends a line, or stands before a line's comment). */
function statements(heading: string): string[] {
  const from = DOC.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`docs/parquet.md has no section "${heading}"`);
  const block = /```sql\n([\s\S]*?)```/.exec(DOC.slice(from))?.[1];
  if (!block) throw new Error(`docs/parquet.md: no sql block under "${heading}"`);
  return block
    .split(/;[ \t]*(?:--[^\n]*)?\n/)
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

/** Where the columns of a table (as declared) and of its files (as Spark reads them) differ; [] when they agree. */
function schemaDrift(declared: string[][], files: string[][]): string[] {
  const inFiles = new Map(files.map(([name, type]) => [name!, type!]));
  const drift = declared
    .filter(([name, type]) => inFiles.get(name!) !== type)
    .map(([name, type]) =>
      inFiles.has(name!)
        ? `${name}: the DDL says ${type}, the files hold ${inFiles.get(name!)}`
        : `${name}: not in the files`,
    );
  const named = new Set(declared.map(([name]) => name));
  drift.push(...files.filter(([name]) => !named.has(name)).map(([name]) => `${name}: in the files, not in the DDL`));
  if (drift.length === 0 && declared.map(([n]) => n).join() !== files.map(([n]) => n).join())
    drift.push("the columns are in another order");
  return drift;
}

/** The text of an epoch second as Spark prints a TIMESTAMP_NTZ: `2026-10-31 12:00:00`. */
const wallClock = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 19).replace("T", " ");

interface BilledRow {
  account_id: number | null;
  cu: number;
  su: number;
  tu: number;
  nu: number;
  amount_due: string;
}
interface CsvRow {
  level: string;
  account: string;
  CU: number;
  SU: number;
  TU: number;
  NU: number;
  due: string;
}

let dir: string;
let spark: SparkAnswer;
let billed: CsvRow[];
let manifest: { partitions: { year: number; month: number; files: { table: string; rows: number }[] }[] };
const parquet = () => join(dir, "parquet");
const focus = () => join(dir, "focus.parquet");

/** `cloudunits billing` of the period, as its CSV says: the environment's row and each account's. */
async function billingCsv(): Promise<CsvRow[]> {
  const csv = join(dir, "billing.csv");
  const run = await runCli([
    "billing",
    "--db",
    join(dir, "w.duckdb"),
    "--start",
    String(START),
    "--end",
    String(END),
    "--prices",
    join(dir, "prices.yaml"),
    "--format",
    "csv",
    "--out",
    csv,
  ]);
  expect(run.code, run.stderr).toBe(0);
  const db = await (await DuckDBInstance.create(":memory:")).connect();
  try {
    const rows = (
      await db.runAndReadAll("SELECT * FROM read_csv($csv, header = true, all_varchar = true)", { csv })
    ).getRowObjects() as Record<string, string | null>[];
    const column = (row: Record<string, string | null>, prefix: string) => {
      const key = Object.keys(row).find((k) => k.startsWith(prefix));
      if (!key) throw new Error(`billing's CSV has no column "${prefix}..."`);
      return row[key] ?? "";
    };
    return rows
      .filter((r) => r.level === "environment" || r.level === "account")
      .map((r) => ({
        level: r.level!,
        account: r.account_id ?? "",
        CU: Number(column(r, "CU own")),
        SU: Number(column(r, "SU (")),
        TU: Number(column(r, "TU (")),
        NU: Number(column(r, "NU (")),
        due: column(r, "amount due"),
      }));
  } finally {
    db.closeSync();
  }
}

describeWith("pyspark", "the export in Apache Spark", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cloudunits-spark-"));
    writeFileSync(join(dir, "prices.yaml"), PRICES);
    for (const args of [
      [
        "generate",
        "--out",
        join(dir, "data"),
        "--accounts",
        "3",
        "--spaces",
        "2",
        "--machines",
        "3",
        "--hours",
        "30",
        "--start",
        String(START),
        "--seed",
        "5",
      ],
      ["ingest", join(dir, "data"), "--db", join(dir, "w.duckdb")],
      ["export", "--db", join(dir, "w.duckdb"), "--format", "parquet", "--out", parquet()],
      [
        "billing",
        "--db",
        join(dir, "w.duckdb"),
        "--start",
        String(START),
        "--end",
        String(END),
        "--prices",
        join(dir, "prices.yaml"),
        "--format",
        "focus-parquet",
        "--out",
        focus(),
      ],
    ]) {
      const run = await runCli(args);
      expect(run.code, `${args.join(" ")}\n${run.stderr}`).toBe(0);
    }
    billed = await billingCsv();
    manifest = JSON.parse(readFileSync(join(parquet(), "manifest.json"), "utf8")) as typeof manifest;

    const ddl = statements("### Spark SQL").map((s) => s.replaceAll("s3://bucket/cloudunits", `file://${parquet()}`));
    const [setting, pricesView, billing] = statements("### The query in Spark SQL");
    // the same DDL with one column's type changed: the comparison below must catch it
    const machines = ddl.find((s) => s.startsWith("CREATE TABLE cloudunits.machines "))!;
    const drifted = machines
      .replace("cloudunits.machines", "drift.machines")
      .replace(/vcpus(\s+)INT,/, "vcpus$1BIGINT,");
    const steps: SparkStep[] = [
      { name: "ddl", run: ddl },
      ...TABLES.flatMap((t): SparkStep[] => [
        { name: `table ${t}`, tableSchema: `cloudunits.${t}` },
        { name: `files ${t}`, fileSchema: join(parquet(), t) },
        // every column of every row read through the declared types (hash(*)), counted per hour
        {
          name: `hours ${t}`,
          rows: `SELECT hour_epoch, CAST(hour_utc AS STRING) AS hour_utc, year, month, count(*) AS n, bit_xor(hash(*)) AS h FROM cloudunits.${t} GROUP BY ALL ORDER BY 1`,
        },
      ]),
      { name: "drift", run: ["CREATE DATABASE IF NOT EXISTS drift", drifted] },
      { name: "table drift.machines", tableSchema: "drift.machines" },
      { name: "prices", run: [setting!, pricesView!] },
      { name: "billing", rows: billing!, args: { start: START, end: END } },
      { name: "november plan", explain: billing!, args: NOVEMBER },
      { name: "focus schema", fileSchema: focus() },
      {
        name: "focus",
        rows: `SELECT BillingAccountId, CAST(sum(BilledCost) AS STRING) AS billed, min(unix_seconds(ChargePeriodStart)) AS first,
                      max(unix_seconds(ChargePeriodEnd)) AS last, min(unix_seconds(BillingPeriodStart)) AS period_start,
                      max(unix_seconds(BillingPeriodEnd)) AS period_end, count(*) AS n
               FROM parquet.\`${focus()}\` GROUP BY BillingAccountId ORDER BY 1`,
      },
    ];
    spark = await runSpark(steps, dir);
    process.stderr.write(
      `Spark ${spark.sparkVersion}: started in ${spark.seconds.startup} s, all steps in ${spark.seconds.total} s, ${spark.seconds.jvmCpu} CPU s\n`,
    );
  }, 600_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("runs the doc's table definitions as written, then MSCK REPAIR TABLE finds both months of every table", () => {
    resultOf(spark, "ddl");
    expect(spark.sparkVersion).toBe(
      readFileSync(join(import.meta.dirname, "../../scripts/spark-requirements.txt"), "utf8").match(
        /pyspark==(\S+)/,
      )![1],
    );
    for (const table of TABLES) {
      const hours = resultOf<{ year: number; month: number }[]>(spark, `hours ${table}`);
      expect({ table, months: [...new Set(hours.map((h) => `${h.year}-${h.month}`))] }).toEqual({
        table,
        months: ["2026-10", "2026-11"],
      });
    }
  });

  it.each(TABLES)("%s: the doc's columns and types are the files', and Spark reads every row through them", (table) => {
    const declared = resultOf<string[][]>(spark, `table ${table}`);
    expect(schemaDrift(declared, resultOf<string[][]>(spark, `files ${table}`))).toEqual([]);
    expect(declared.slice(-2)).toEqual([
      ["year", "int"],
      ["month", "int"],
    ]);
    const rows = manifest.partitions
      .flatMap((p) => p.files)
      .filter((f) => f.table === table)
      .reduce((n, f) => n + f.rows, 0);
    expect(rows).toBeGreaterThan(0);
    expect(resultOf<{ n: number }[]>(spark, `hours ${table}`).reduce((n, h) => n + h.n, 0)).toBe(rows);
  });

  it("a changed column type is caught: the comparison names the column and both types", () => {
    expect(schemaDrift(resultOf(spark, "table drift.machines"), resultOf(spark, "files machines"))).toEqual([
      "vcpus: the DDL says bigint, the files hold int",
    ]);
  });

  it(`hour_utc (TIMESTAMP_NTZ) is each hour's UTC start whatever the session's time zone`, () => {
    expect(spark.sessionTimeZone).toBe("Pacific/Auckland");
    for (const table of TABLES) {
      const hours = resultOf<{ hour_epoch: number; hour_utc: string }[]>(spark, `hours ${table}`);
      expect(hours.map((h) => h.hour_epoch)).toEqual(Array.from({ length: 30 }, (_, i) => START + i * HOUR));
      expect(hours.map((h) => h.hour_utc)).toEqual(hours.map((h) => wallClock(h.hour_epoch)));
    }
  });

  it("the doc's Spark billing query gives each account's and the environment's CU, SU, TU, NU and amount due as billing does", () => {
    const rows = resultOf<BilledRow[]>(spark, "billing");
    const accounts = billed.filter((r) => r.level === "account");
    expect(accounts).toHaveLength(3);
    expect(rows.map((r) => r.account_id)).toEqual([...accounts.map((a) => Number(a.account)), null]);
    const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
    for (const row of rows) {
      const reference =
        row.account_id === null
          ? billed.find((r) => r.level === "environment")!
          : accounts.find((a) => Number(a.account) === row.account_id)!;
      const figures = { CU: row.cu, SU: row.su, TU: row.tu, NU: row.nu };
      for (const [unit, value] of Object.entries(figures)) {
        const expected = reference[unit as "CU"];
        expect({ account: row.account_id, unit, value, close: close(value, expected) }).toEqual({
          account: row.account_id,
          unit,
          value: expect.any(Number),
          close: true,
        });
        expect(expected).toBeGreaterThan(0);
      }
      expect({ account: row.account_id, amountDue: row.amount_due }).toEqual({
        account: row.account_id,
        amountDue: reference.due,
      });
    }
    // aggregate: the environment's own CU is at most its accounts' sum
    expect(rows.at(-1)!.cu).toBeLessThanOrEqual(rows.slice(0, -1).reduce((s, r) => s + r.cu, 0));
  });

  it("a query for one month reads only that month's folder: Spark's plan prunes the partitions", () => {
    const plan = resultOf<string>(spark, "november plan");
    const scans = plan.split(/\n\(\d+\) /).filter((s) => s.startsWith("Scan parquet"));
    for (const table of ["machine_facts", "gateway_facts"]) {
      const ofTable = scans.filter((s) =>
        new RegExp(`^Scan parquet (spark_catalog\\.)?cloudunits\\.${table}\\n`).test(s),
      );
      expect(ofTable.length, plan).toBeGreaterThan(0);
      for (const scan of ofTable) {
        // e.g. Location: InMemoryFileIndex [file:/tmp/.../parquet/machine_facts/year=2026/month=11]
        const location = scan.split("\n").find((l) => l.startsWith("Location:"))!;
        expect(location).toMatch(new RegExp(`\\[file:[^,\\]]*/parquet/${table}/year=2026/month=11\\]$`));
        expect(scan).toMatch(
          /PartitionFilters: \[.*make_date\(year#\d+, month#\d+, 1, true\) >= 2026-11-01\), \(make_date\(year#\d+, month#\d+, 1, true\) <= 2026-11-30\)\]/,
        );
      }
    }
    // and the query reads nothing else (every scan above is of one of the two)
    expect(
      scans.filter((s) => !/^Scan parquet (spark_catalog\.)?cloudunits\.(machine|gateway)_facts\n/.test(s)),
    ).toEqual([]);
  });

  it("reads the FOCUS Parquet file: costs DECIMAL(38,12), times TIMESTAMP, and each account's BilledCost adds up to its amount due", () => {
    const types = new Map(resultOf<string[][]>(spark, "focus schema").map(([name, type]) => [name!, type!]));
    for (const cost of ["BilledCost", "EffectiveCost", "ListCost", "ContractedCost"])
      expect({ cost, type: types.get(cost) }).toEqual({ cost, type: "decimal(38,12)" });
    for (const time of ["BillingPeriodStart", "BillingPeriodEnd", "ChargePeriodStart", "ChargePeriodEnd"])
      expect({ time, type: types.get(time) }).toEqual({ time, type: "timestamp" });
    const perAccount = resultOf<
      {
        BillingAccountId: string;
        billed: string;
        first: number;
        last: number;
        period_start: number;
        period_end: number;
      }[]
    >(spark, "focus");
    const accounts = billed.filter((r) => r.level === "account");
    expect(perAccount.map((r) => r.BillingAccountId)).toEqual(accounts.map((a) => a.account));
    for (const row of perAccount) {
      const due = accounts.find((a) => a.account === row.BillingAccountId)!.due;
      expect({ account: row.BillingAccountId, billed: row.billed }).toEqual({
        account: row.BillingAccountId,
        billed: `${due}0000000000`,
      });
      expect([row.first, row.last, row.period_start, row.period_end]).toEqual([START, END, START, END]);
    }
  });
});
