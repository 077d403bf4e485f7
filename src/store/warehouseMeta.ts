import type { DuckDBConnection } from "@duckdb/node-api";
import { FACTS_EXTERNAL_NIC_TYPE } from "../load/machineFacts.js";
import { SCHEMA_VERSION } from "./schema.js";

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
}

/** Reads the meta of a warehouse (a read-only one too: a missing table is version 1). */
export async function readWarehouseMeta(connection: DuckDBConnection): Promise<WarehouseMeta> {
  const found = await connection.runAndReadAll("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'warehouse_meta'");
  if (Number(found.getRowObjectsJS()[0]!.n) === 0) return { schemaVersion: 1, factsExternalNicType: undefined };
  const rows = (await connection.runAndReadAll("SELECT key, value FROM warehouse_meta")).getRowObjectsJS() as { key: string; value: string }[];
  const value = (key: string) => rows.find((r) => r.key === key)?.value;
  const version = Number(value("schema_version") ?? 1);
  return { schemaVersion: version, factsExternalNicType: version >= 2 ? value("facts_external_nic_type") : undefined };
}

/** Records that the warehouse's facts are complete (SCHEMA_VERSION), in the connection's current transaction. */
export async function writeWarehouseMeta(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    "INSERT OR REPLACE INTO warehouse_meta (key, value) VALUES ('schema_version', $version), ('facts_external_nic_type', $nicType)",
    { version: String(SCHEMA_VERSION), nicType: FACTS_EXTERNAL_NIC_TYPE },
  );
}
