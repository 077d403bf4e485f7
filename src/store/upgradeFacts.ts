import type { DuckDBConnection } from "@duckdb/node-api";
import { rowFacts } from "../billing/warehouseFacts.js";
import { FACTS_EXTERNAL_NIC_TYPE } from "../load/machineFacts.js";
import { ColumnBuilder } from "../load/ColumnBuilder.js";
import { insertColumns } from "./insertColumns.js";
import { MACHINE_FACTS_SQL, SCHEMA_VERSION } from "./schema.js";
import { factColumnsSql, VM_FACT_NAMES, VM_FACTS } from "../load/vmFacts.js";
import { readWarehouseMeta, writeWarehouseMeta } from "./warehouseMeta.js";

/** Facts rows staged before they are inserted (a day of 10 × 200 machines is 48,000). */
const ROWS_PER_INSERT = 65_536;
const FACTS_TABLES = ["machine_facts", "gateway_facts"] as const;

/**
 * Brings a warehouse opened to write to SCHEMA_VERSION (its tables exist, created by
 * SCHEMA_SQL): a file made before the billing facts gets them, and a file whose facts are
 * another set than `VM_FACTS` (made by a cloudunits with fewer or other facts) gets them anew,
 * computed from its disk and NIC rows by the same facts builder as billing from them, in ONE
 * transaction with the version row, so a process killed midway leaves the file as it was (version 1, no facts) and the next
 * opening upgrades it again. A new (empty) file just gets its version row. Returns the
 * account-hours whose facts were written.
 */
export async function upgradeFacts(connection: DuckDBConnection): Promise<number> {
  const meta = await readWarehouseMeta(connection);
  const otherFacts = meta.factsColumns !== undefined && meta.factsColumns !== factColumnsSql();
  if (meta.schemaVersion >= SCHEMA_VERSION && !otherFacts) return 0;
  const span = (
    await connection.runAndReadAll("SELECT min(hour_epoch) AS first, max(hour_epoch) AS last FROM account_hours")
  ).getRowObjectsJS()[0]!;
  let hours = 0;
  const restore = await roomForTexts(connection);
  await connection.run("BEGIN TRANSACTION");
  try {
    if (otherFacts) await connection.run(`DROP TABLE machine_facts; ${MACHINE_FACTS_SQL}`); // facts of another set: remade with this one's columns
    for (const table of FACTS_TABLES) await connection.run(`DELETE FROM ${table}`);
    if (span.first !== null) {
      let builder = new ColumnBuilder(new Set(FACTS_TABLES));
      let rows = 0;
      const flush = async () => {
        const batch = builder.finish();
        for (const table of FACTS_TABLES) await insertColumns(connection, table, [batch[table]]);
        builder = new ColumnBuilder(new Set(FACTS_TABLES));
        rows = 0;
      };
      const period = { start: Number(span.first), end: Number(span.last) + 3600 };
      for await (const facts of rowFacts(connection, period, FACTS_EXTERNAL_NIC_TYPE)) {
        builder.addFacts(facts);
        hours++;
        rows += facts.machines;
        if (rows >= ROWS_PER_INSERT) await flush();
      }
      await flush();
    }
    await writeWarehouseMeta(connection);
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK").catch(() => {});
    throw error;
  }
  await connection.run("CHECKPOINT");
  if (restore !== undefined) await connection.run("SET memory_limit = $limit", { limit: restore });
  return hours;
}

const UNIT_BYTES: Record<string, number> = {
  bytes: 1,
  KiB: 2 ** 10,
  MiB: 2 ** 20,
  GiB: 2 ** 30,
  TiB: 2 ** 40,
  KB: 1e3,
  MB: 1e6,
  GB: 1e9,
  TB: 1e12,
};

/**
 * DuckDB holds a transaction's texts longer than 12 bytes in memory until its commit (see
 * BatchWriter), and the upgrade is one transaction: the memory cap the file was opened with
 * (ingest's is 64 MiB) is raised by twice the long texts the facts repeat from `machines`
 * (types, statuses, image names), so the upgrade of a large warehouse commits instead of
 * failing. Returns the cap to restore afterwards (undefined: none was raised).
 */
async function roomForTexts(connection: DuckDBConnection): Promise<string | undefined> {
  const long = (column: string) => `coalesce(sum(strlen(${column})) FILTER (WHERE strlen(${column}) > 12), 0)`;
  const row = (
    await connection.runAndReadAll(
      `SELECT (${["type", ...VM_FACT_NAMES.filter((n) => VM_FACTS[n].kind === "str").map((n) => VM_FACTS[n].column)].map(long).join(" + ")})::DOUBLE AS bytes, current_setting('memory_limit') AS cap FROM machines`,
    )
  ).getRowObjectsJS()[0]!;
  const bytes = Number(row.bytes);
  const cap = String(row.cap);
  const parsed = /^([\d.]+)\s*(\w+)$/.exec(cap);
  const capBytes = parsed === null ? undefined : Number(parsed[1]) * (UNIT_BYTES[parsed[2]!] ?? Number.NaN);
  if (bytes === 0 || capBytes === undefined || !Number.isFinite(capBytes)) return undefined;
  await connection.run("SET memory_limit = $limit", { limit: `${Math.ceil((capBytes + 2 * bytes) / 1024)}KiB` });
  return cap;
}
