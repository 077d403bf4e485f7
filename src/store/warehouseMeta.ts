import type { DuckDBConnection } from "@duckdb/node-api";
import { FACTS_EXTERNAL_NIC_TYPE } from "../load/machineFacts.js";
import { factColumnsSql, storedFactColumns } from "../load/vmFacts.js";
import { createHash } from "node:crypto";
import { SCHEMA_SQL, SCHEMA_VERSION } from "./schema.js";

/** SHA-256 of the schema's DDL: a file whose `warehouse_meta.schema_sql` holds it has had every statement of it run. */
const SCHEMA_SQL_SHA256 = createHash("sha256").update(SCHEMA_SQL).digest("hex");

/** The tables SCHEMA_SQL makes. */
const SCHEMA_TABLES = [...SCHEMA_SQL.matchAll(/CREATE TABLE IF NOT EXISTS (\w+)/g)].map((m) => m[1]!);

/**
 * The warehouse's `warehouse_meta` (docs/warehouse.md): its schema version and the external
 * NIC type its billing facts count. A file made before version 2 has no such table, or no
 * version row: it holds no facts.
 */
export interface WarehouseMeta {
  /** 1 for a file without the row (made before the facts). */
  schemaVersion: number;
  /** The NIC type `machine_facts.external_nics` counts; undefined without facts. */
  factsExternalNicType: string | undefined;
  /** The facts columns of `machine_facts` (see `storedFactColumns`); undefined without facts. */
  factsColumns: string | undefined;
}

/** Reads the meta of a warehouse (a read-only one too: a missing table is version 1). */
export async function readWarehouseMeta(connection: DuckDBConnection): Promise<WarehouseMeta> {
  const found = await connection.runAndReadAll(
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'warehouse_meta'",
  );
  if (Number(found.getRowObjectsJS()[0]!.n) === 0)
    return { schemaVersion: 1, factsExternalNicType: undefined, factsColumns: undefined };
  const rows = (await connection.runAndReadAll("SELECT key, value FROM warehouse_meta")).getRowObjectsJS() as {
    key: string;
    value: string;
  }[];
  const value = (key: string) => rows.find((r) => r.key === key)?.value;
  const version = Number(value("schema_version") ?? 1);
  return {
    schemaVersion: version,
    factsExternalNicType: version >= 2 ? value("facts_external_nic_type") : undefined,
    factsColumns: version >= 2 ? storedFactColumns(value("facts_columns")) : undefined,
  };
}

/** Records that the warehouse's facts are complete (SCHEMA_VERSION, the columns of `VM_FACTS`), in the connection's current transaction. */
export async function writeWarehouseMeta(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    "INSERT OR REPLACE INTO warehouse_meta (key, value) VALUES ('schema_version', $version), ('facts_external_nic_type', $nicType), ('facts_columns', $columns)",
    { version: String(SCHEMA_VERSION), nicType: FACTS_EXTERNAL_NIC_TYPE, columns: factColumnsSql() },
  );
}

/**
 * True when a warehouse opened to write needs no schema statement: its tables exist, this
 * version of SCHEMA_SQL has run on it (`schema_sql`, see {@link writeSchemaMark}) and its facts
 * are at SCHEMA_VERSION, of `VM_FACTS`' columns. One query; false for a new file, an older one, or one another version
 * of cloudunits last opened to write.
 */
export async function schemaCurrent(connection: DuckDBConnection): Promise<boolean> {
  const tables = SCHEMA_TABLES.map((t) => `'${t}'`).join(", ");
  try {
    const row = (
      await connection.runAndReadAll(
        `SELECT (SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name IN (${tables})) AS tables,
         (SELECT value FROM warehouse_meta WHERE key = 'schema_version') AS version,
         (SELECT value FROM warehouse_meta WHERE key = 'schema_sql') AS schema_sql,
         (SELECT value FROM warehouse_meta WHERE key = 'facts_columns') AS facts`,
      )
    ).getRowObjectsJS()[0]!;
    return (
      Number(row.tables) === SCHEMA_TABLES.length &&
      row.version === String(SCHEMA_VERSION) &&
      row.schema_sql === SCHEMA_SQL_SHA256 &&
      storedFactColumns((row.facts ?? undefined) as string | undefined) === factColumnsSql()
    );
  } catch {
    return false; // no warehouse_meta: a new or older file
  }
}

/** Records that this version of SCHEMA_SQL has run on the warehouse and its facts are upgraded (after both, so a process killed before runs them again). */
export async function writeSchemaMark(connection: DuckDBConnection): Promise<void> {
  await connection.run("INSERT OR REPLACE INTO warehouse_meta (key, value) VALUES ('schema_sql', $sha)", {
    sha: SCHEMA_SQL_SHA256,
  });
}
