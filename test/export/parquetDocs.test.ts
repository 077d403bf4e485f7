import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePrices } from "../../src/billing/prices.js";
import { toParquet } from "../../src/export/toParquet.js";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { openWarehouse } from "../../src/store/openWarehouse.js";
import type { Warehouse } from "../../src/store/types.js";
import { reportFrom } from "../helpers/billFrom.js";

const DOC = readFileSync(join(import.meta.dirname, "../../docs/parquet.md"), "utf8");
const START = 1793448000; // 2026-10-31T12:00Z: the period crosses into November
const HOURS = 30;

/** The ```sql blocks of the doc's section headed `heading`. */
function sqlBlocks(heading: string): string[] {
  const from = DOC.indexOf(`${heading}\n`);
  if (from < 0) throw new Error(`docs/parquet.md has no section "${heading}"`);
  const next = DOC.slice(from + heading.length).search(/\n#{2,3} /);
  const section = DOC.slice(from, next < 0 ? undefined : from + heading.length + next);
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/** Table → its columns `name TYPE`, from the CREATE TABLE statements of a block. */
function definedTables(sql: string): Map<string, string[]> {
  const tables = new Map<string, string[]>();
  for (const m of sql.matchAll(/CREATE TABLE (?:\w+\.)*(\w+) \(\n([\s\S]*?)\n\)/g)) {
    tables.set(
      m[1]!,
      m[2]!.split(",\n").map((c) => c.trim().replace(/\s+/g, " ")),
    );
  }
  return tables;
}

// How each engine names the types DuckDB writes (DuckDB's DESCRIBE of the file → the DDL's type).
const SPARK: Record<string, string> = {
  BIGINT: "BIGINT",
  INTEGER: "INT",
  DOUBLE: "DOUBLE",
  VARCHAR: "STRING",
  BOOLEAN: "BOOLEAN",
  TIMESTAMP: "TIMESTAMP_NTZ",
};

let dir: string;
let warehouse: Warehouse;
let reader: DuckDBConnection;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-parquet-docs-"));
  await writeDataset({
    out: join(dir, "data"),
    accounts: 3,
    spaces: 2,
    machines: 4,
    hours: HOURS,
    start: START,
    seed: 11,
  });
  warehouse = await openWarehouse([join(dir, "data")]);
  await toParquet(warehouse.connection, { outDir: join(dir, "parquet") });
  reader = await (await DuckDBInstance.create(":memory:")).connect();
}, 60_000);
afterAll(() => {
  reader?.closeSync();
  warehouse?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("docs/parquet.md", () => {
  it("the Spark SQL table definitions have the columns and types DuckDB reads in the written files, then year and month", async () => {
    const defined = definedTables(sqlBlocks("### Spark SQL").join("\n"));
    const manifest = JSON.parse(readFileSync(join(dir, "parquet/manifest.json"), "utf8")) as {
      partitions: { files: { table: string; file: string }[] }[];
    };
    const files = manifest.partitions[0]!.files;
    expect([...defined.keys()]).toEqual(files.map((f) => f.table));
    for (const f of files) {
      const described = (
        await reader.runAndReadAll("DESCRIBE SELECT * FROM read_parquet($file, hive_partitioning = false)", {
          file: join(dir, "parquet", f.file),
        })
      ).getRowObjectsJS();
      const fromFile = described.map(
        (c) => `${String(c.column_name)} ${SPARK[String(c.column_type)] ?? `(no ${String(c.column_type)} in the map)`}`,
      );
      const partition = ["year INT", "month INT"];
      expect({ table: f.table, columns: defined.get(f.table) }).toEqual({
        table: f.table,
        columns: [...fromFile, ...partition],
      });
    }
  });

  it("its one SQL query over the export bills the environment's CU, SU, TU, NU and the total amount due as billing does", async () => {
    const [query] = sqlBlocks("### The query in DuckDB");
    const prices = { cu_per_hour: 0.05, su_per_month: 40, tu_per_hour: 0.013, nu_per_tb: 20 };
    const start = START + 3 * 3600;
    const end = START + (HOURS - 2) * 3600;
    const [fromSql] = (
      await reader.runAndReadAll(query!, { dir: join(dir, "parquet"), start, end, ...prices })
    ).getRowObjectsJS();

    const report = await reportFrom(
      warehouse.connection,
      { start, end },
      {},
      {
        prices: parsePrices({
          currency: "EUR",
          prices: {
            CU: prices.cu_per_hour,
            SU: { perMonth: prices.su_per_month },
            TU: prices.tu_per_hour,
            NU: prices.nu_per_tb,
          },
        }),
      },
    );
    const environment = report.lines.find((l) => l.level === "environment")!.quantities;
    for (const unit of ["CU", "SU", "TU", "NU"] as const) {
      expect({ unit, value: Number(fromSql![unit.toLowerCase()]) }).toEqual({
        unit,
        value: expect.closeTo(environment[unit]!, 9),
      });
      expect(environment[unit]).toBeGreaterThan(0);
    }
    expect(String(fromSql!.total_amount_due)).toBe(report.amountDue!.toFixed(2));
  });
});
