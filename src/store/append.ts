import type { DuckDBConnection } from "@duckdb/node-api";
import type { DecodedAccountHour } from "../capnp/records.js";
import { stageRecords } from "../load/stageRecords.js";
import { appendImpossibleValues } from "../load/impossibleValues.js";
import { insertBatches } from "./insertColumns.js";
import { DATA_TABLES, type DataTable } from "./schema.js";

export { GATEWAY_TYPE } from "../load/columnBatch.js";

/** Options of {@link appendAccountHours}. */
export interface AppendOptions {
  /** The data tables to fill; the others are left alone. Default: every data table. */
  tables?: readonly DataTable[];
}

/**
 * Appends decoded account-hours to the data tables of `schema.ts`, in the connection's
 * current transaction (or auto-committed when there is none). The caller owns
 * transactions and the manifest. Gateways (`type = "routeros"`) go to `gateways`, every
 * other machine to `machines`; disks and NICs keep their position in the owner's list.
 * Impossible values (docs/warehouse.md) are NULL in the data tables and listed in `impossible_values`
 * (their file named "").
 */
export async function appendAccountHours(
  connection: DuckDBConnection,
  hours: Iterable<DecodedAccountHour>,
  options: AppendOptions = {},
): Promise<void> {
  const tables = new Set<DataTable>(options.tables ?? DATA_TABLES);
  const { batch, impossible } = stageRecords([...hours], tables);
  await insertBatches(connection, [batch], tables);
  await appendImpossibleValues(connection, impossible);
}
