import type { DuckDBAppender, DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { CONFIGURED_IOPS_FIELDS } from "../capnp/layout.js";
import { isoUtc } from "../base/time.js";
import { DISK_LIMIT_COLUMNS } from "./columnBatch.js";
import type { ImpossiblePart, ImpossibleValue } from "../base/impossibleValue.js";

export type { ImpossiblePart, ImpossibleValue } from "../base/impossibleValue.js";

/**
 * True for a value docs/warehouse.md calls impossible: NaN, ±Infinity or negative (`-0` is 0).
 * Written so that NaN fails the test: a comparison with NaN is false.
 */
export function isImpossible(value: number): boolean {
  return !(value >= 0 && value < Infinity);
}

/** A numeric field of the files (schema name) and the warehouse column holding it. */
export interface MeasuredField {
  field: string;
  column: string;
}

/**
 * Every numeric field of the files that holds a measure (docs/warehouse.md), by part: `vcpus` is an
 * Int8 (can be negative), the others Float32 (can also be NaN or ±Infinity). Ids are not
 * measures. Their warehouse columns are nullable: an impossible value is stored as NULL.
 */
export const MEASURED_FIELDS: Readonly<Record<ImpossiblePart, readonly MeasuredField[]>> = {
  machine: [
    { field: "vcpus", column: "vcpus" },
    { field: "cpuMinutes", column: "cpu_minutes" },
    { field: "mem", column: "mem_mb" },
  ],
  disk: [
    { field: "size", column: "size_gb" },
    { field: "iopsRead", column: "iops_read" },
    { field: "iopsWrite", column: "iops_write" },
    { field: "iopsReadMax", column: "iops_read_max" },
    { field: "iopsWriteMax", column: "iops_write_max" },
    ...CONFIGURED_IOPS_FIELDS.map((name, i) => ({ field: `configuredIops.${name}`, column: DISK_LIMIT_COLUMNS[i]! })),
  ],
  nic: [
    { field: "tx", column: "tx_bytes" },
    { field: "rx", column: "rx_bytes" },
  ],
};

/** The warehouse tables of each part's measured columns (machines' fields are in `gateways` too). */
const TABLES_OF_PART: Readonly<Record<ImpossiblePart, readonly string[]>> = {
  machine: ["machines", "gateways"],
  disk: ["disks"],
  nic: ["nics"],
};

/** Statements making the measured columns of a database made before docs/warehouse.md nullable (idempotent). */
export const NULLABLE_MEASURES_SQL = (Object.keys(MEASURED_FIELDS) as ImpossiblePart[])
  .flatMap((part) =>
    TABLES_OF_PART[part].flatMap((table) =>
      MEASURED_FIELDS[part].map((f) => `ALTER TABLE ${table} ALTER COLUMN ${f.column} DROP NOT NULL;`),
    ),
  )
  .join("\n");

/** The DDL of the table listing impossible values (one row per value, found while staging). */
export const IMPOSSIBLE_VALUES_SQL = `
-- Impossible values (docs/warehouse.md): NaN, ±Infinity or negative measures. The data column holds NULL.
CREATE TABLE IF NOT EXISTS impossible_values (
  account_id     BIGINT NOT NULL,
  hour_epoch     BIGINT NOT NULL,
  file           VARCHAR NOT NULL,     -- display name of the file holding it
  cloudspace_id  INTEGER NOT NULL,
  machine_id     INTEGER NOT NULL,
  machine_type   VARCHAR NOT NULL,     -- 'vm', 'routeros' (the gateway), ...
  part           VARCHAR NOT NULL,     -- 'machine', 'disk' or 'nic'
  part_index     INTEGER,              -- disk or NIC: position in the machine's list
  part_id        INTEGER,              -- disk or NIC: its id
  nic_type       VARCHAR,              -- NIC: its type
  field          VARCHAR NOT NULL,     -- schema name, e.g. 'mem', 'configuredIops.totalIopsSec'
  column_name    VARCHAR NOT NULL,     -- warehouse column, e.g. 'mem_mb'
  value          VARCHAR NOT NULL      -- as found: 'NaN', '-Infinity', '-128'
);
`;

/** `machine 5`, `gateway 0`, `machine 5 disk 1 (id 7)`, `machine 5 NIC 0 (id 0, external)`. */
export function impossibleEntity(v: ImpossibleValue): string {
  const owner =
    v.machineType === "routeros"
      ? `gateway ${v.machineId}`
      : `machine ${v.machineId}${v.machineType === "vm" ? "" : ` (type ${v.machineType})`}`;
  if (v.part === "disk") return `${owner} disk ${v.index} (id ${v.partId})`;
  if (v.part === "nic") return `${owner} NIC ${v.index} (id ${v.partId}, ${v.nicType})`;
  return owner;
}

/** One line naming the file, the entity and the field: `F: account 2, hour T, cloud space 3, machine 5 disk 0 (id 1): configuredIops.totalIopsSec = NaN`. */
export function describeImpossible(v: ImpossibleValue): string {
  return `${v.file}: account ${v.accountId}, hour ${isoUtc(v.hourEpoch)}, cloud space ${v.cloudspaceId}, ${impossibleEntity(v)}: ${v.field} = ${v.value}`;
}

/** Appends impossible values to `impossible_values` in the connection's current transaction. */
export async function appendImpossibleValues(
  connection: DuckDBConnection,
  values: readonly ImpossibleValue[],
): Promise<void> {
  if (values.length === 0) return;
  const appender = await connection.createAppender("impossible_values");
  const intOrNull = (a: DuckDBAppender, n: number | null) => (n === null ? a.appendNull() : a.appendInteger(n));
  try {
    for (const v of values) {
      appender.appendBigInt(BigInt(v.accountId));
      appender.appendBigInt(BigInt(v.hourEpoch));
      appender.appendVarchar(v.file);
      appender.appendInteger(v.cloudspaceId);
      appender.appendInteger(v.machineId);
      appender.appendVarchar(v.machineType);
      appender.appendVarchar(v.part);
      intOrNull(appender, v.index);
      intOrNull(appender, v.partId);
      if (v.nicType === null) appender.appendNull();
      else appender.appendVarchar(v.nicType);
      appender.appendVarchar(v.field);
      appender.appendVarchar(v.column);
      appender.appendVarchar(v.value);
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

/**
 * The impossible values of the warehouse matching `where` (SQL over the columns of
 * `impossible_values`, parameters `params` of `types`), in file order: account, hour, file, cloud
 * space, machine, part, index, field. A database made before docs/warehouse.md has none.
 */
export async function readImpossibleValues(
  connection: DuckDBConnection,
  where = "TRUE",
  params: Record<string, DuckDBValue> = {},
  types: Record<string, DuckDBType> = {},
): Promise<ImpossibleValue[]> {
  const exists = await connection.runAndReadAll(
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'impossible_values'",
  );
  if (Number(exists.getRowObjectsJS()[0]!.n) === 0) return [];
  const isUsed = ([name]: [string, unknown]) => where.includes(`$${name}`);
  const used = Object.fromEntries(Object.entries(params).filter(isUsed));
  const rows = (
    await connection.runAndReadAll(
      `SELECT * FROM impossible_values b WHERE ${where}
     ORDER BY account_id, hour_epoch, file, cloudspace_id, machine_id, part <> 'machine', part, part_index, field`,
      used,
      Object.fromEntries(Object.entries(types).filter(isUsed)),
    )
  ).getRowObjectsJS();
  const intOrNull = (n: unknown) => (n === null ? null : Number(n));
  return rows.map((r) => ({
    file: String(r.file),
    accountId: Number(r.account_id),
    hourEpoch: Number(r.hour_epoch),
    cloudspaceId: Number(r.cloudspace_id),
    machineId: Number(r.machine_id),
    machineType: String(r.machine_type),
    part: String(r.part) as ImpossiblePart,
    index: intOrNull(r.part_index),
    partId: intOrNull(r.part_id),
    nicType: r.nic_type === null ? null : String(r.nic_type),
    field: String(r.field),
    column: String(r.column_name),
    value: String(r.value),
  }));
}
