import type { DataTable } from "./dataTables.js";
import { VM_FACT_NAMES, VM_FACTS } from "./vmFacts.js";

/** The machine type of the cloud space's virtual gateway (docs/input.md). */
export const GATEWAY_TYPE = "routeros";

/**
 * How a column is staged: `i64` as little-endian (low, high) Int32 pairs (DuckDB BIGINT
 * bytes, built without BigInts), `i64null` the same plus a validity byte per row, `i32`
 * INTEGER, `f64` DOUBLE, `bool` BOOLEAN (one byte), `str` VARCHAR (JS strings).
 */
export type ColumnKind = "i64" | "i64null" | "i32" | "f64" | "bool" | "str";

/** A column of a data table: its name in schema.ts and how it is staged. */
export interface ColumnSpec {
  name: string;
  kind: ColumnKind;
}

const columns = (...specs: [string, ColumnKind][]): ColumnSpec[] => specs.map(([name, kind]) => ({ name, kind }));
/** The columns of a disk's configured limits, in the order of `CONFIGURED_IOPS_FIELDS`. */
export const DISK_LIMIT_COLUMNS = [
  "cfg_total_bytes_sec",
  "cfg_read_bytes_sec",
  "cfg_write_bytes_sec",
  "cfg_total_iops_sec",
  "cfg_read_iops_sec",
  "cfg_write_iops_sec",
  "cfg_total_bytes_sec_max",
  "cfg_read_bytes_sec_max",
  "cfg_write_bytes_sec_max",
  "cfg_total_iops_sec_max",
  "cfg_read_iops_sec_max",
  "cfg_write_iops_sec_max",
  "cfg_size_iops_sec",
];

/** The columns of each data table, in the column order of schema.ts (a test holds them to the DDL). */
export const TABLE_COLUMNS: Readonly<Record<DataTable, readonly ColumnSpec[]>> = {
  account_hours: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["root_account_id", "i64null"],
    ["cloudspace_count", "i32"],
  ),
  cloudspaces: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["cloudspace_id", "i32"],
    ["cs_account_id", "i32"],
    ["state", "str"],
  ),
  machines: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["cloudspace_id", "i32"],
    ["machine_id", "i32"],
    ["type", "str"],
    ["vcpus", "i32"],
    ["cpu_minutes", "f64"],
    ["mem_mb", "f64"],
    ["image_name", "str"],
    ["status", "str"],
  ),
  gateways: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["cloudspace_id", "i32"],
    ["gateway_id", "i32"],
    ["vcpus", "i32"],
    ["cpu_minutes", "f64"],
    ["mem_mb", "f64"],
    ["image_name", "str"],
    ["status", "str"],
  ),
  disks: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["cloudspace_id", "i32"],
    ["machine_id", "i32"],
    ["disk_index", "i32"],
    ["disk_id", "i32"],
    ["size_gb", "f64"],
    ["iops_read", "f64"],
    ["iops_write", "f64"],
    ["iops_read_max", "f64"],
    ["iops_write_max", "f64"],
    ["has_configured_iops", "bool"],
    ...DISK_LIMIT_COLUMNS.map((name): [string, ColumnKind] => [name, "f64"]),
  ),
  nics: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["cloudspace_id", "i32"],
    ["machine_id", "i32"],
    ["is_gateway", "bool"],
    ["nic_index", "i32"],
    ["nic_id", "i32"],
    ["type", "str"],
    ["tx_bytes", "f64"],
    ["rx_bytes", "f64"],
  ),
  machine_facts: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["cloudspace_id", "i32"],
    ["machine_id", "i32"],
    ["type", "str"],
    ...VM_FACT_NAMES.map((n): [string, ColumnKind] => [VM_FACTS[n].column, VM_FACTS[n].kind]),
  ),
  gateway_facts: columns(
    ["account_id", "i64"],
    ["hour_epoch", "i64"],
    ["cloudspace_id", "i32"],
    ["external_nics", "i32"],
    ["external_bytes", "f64"],
  ),
};

/**
 * The columns a load keeps, by table (a table not named keeps all of them): an in-memory
 * warehouse holds only what its command reads.
 */
export type ColumnSelection = Partial<Record<DataTable, readonly string[]>>;

/** The indexes (in TABLE_COLUMNS) of the columns of `table` that `selection` keeps, in table order; throws on an unknown name. */
export function keptColumns(table: DataTable, selection: ColumnSelection | undefined): number[] {
  const all = TABLE_COLUMNS[table];
  const names = selection?.[table];
  if (names === undefined) return all.map((_, i) => i);
  for (const name of names) {
    if (!all.some((c) => c.name === name)) throw new Error(`table ${table} has no column ${name}`);
  }
  return all.flatMap((c, i) => (names.includes(c.name) ? [i] : []));
}

/**
 * One staged column: typed arrays for numbers, an array for strings, validity for `i64null`.
 * `nulls` of a measure (`i32`, `f64`) lists, ascending, the rows holding an impossible value
 * (docs/warehouse.md), inserted as NULL; absent or empty when none does (the usual case).
 */
export type ColumnData =
  | { kind: "i64"; values: Int32Array }
  | { kind: "i64null"; values: Int32Array; valid: Uint8Array }
  | { kind: "i32"; values: Int32Array; nulls?: number[] }
  | { kind: "f64"; values: Float64Array; nulls?: number[] }
  | { kind: "bool"; values: Uint8Array }
  | StringColumn;

/**
 * A VARCHAR column as DuckDB's 16-byte string records: strings of at most 12 UTF-8 bytes
 * are inlined in `records` (length, then the bytes, zero-padded: DuckDB's own layout, copied
 * to the vector as is); longer ones are listed in `longRows`/`longValues` and assigned one
 * by one.
 */
export interface StringColumn {
  kind: "str";
  records: Uint8Array;
  longRows: number[];
  longValues: string[];
}

/** The rows of one table, column by column. */
export interface TableColumns {
  rows: number;
  columns: ColumnData[];
}

/** Decoded account-hours staged column by column, per table: what workers hand to the loader. */
export type ColumnBatch = Partial<Record<DataTable, TableColumns>>;

/** The most UTF-8 bytes DuckDB inlines in a string record. */
const INLINE_BYTES = 12;
const encoder = new TextEncoder();
/** Inline string records by value, as 4 int32 words (null: too long to inline); the values repeat a lot (types, states, images). */
const recordCache = new Map<string, Int32Array | null>();

/** The 16-byte DuckDB record of a short string as 4 int32 words (shared: do not modify), or null when too long to inline. */
export function inlineRecord(value: string): Int32Array | null {
  let record = recordCache.get(value);
  if (record === undefined) {
    const bytes = encoder.encode(value);
    record = null;
    if (bytes.length <= INLINE_BYTES) {
      const buffer = new Uint8Array(16);
      new DataView(buffer.buffer).setUint32(0, bytes.length, true);
      buffer.set(bytes, 4);
      record = new Int32Array(buffer.buffer);
    }
    if (recordCache.size < 10_000) recordCache.set(value, record);
  }
  return record;
}

const TWO_32 = 4294967296;

/** Writes an integer (|value| < 2^53) as a little-endian int64 at pair `row` of `values` (an `i64` column's). */
export function putI64(values: Int32Array, row: number, value: number): void {
  const high = Math.floor(value / TWO_32);
  values[2 * row] = value - high * TWO_32;
  values[2 * row + 1] = high;
}

/**
 * Writes `value` at `row` of a string column whose records are `words` (four int32 words a
 * row): as DuckDB's 16-byte record when short enough, else listed in `column` to assign apart.
 */
export function putString(words: Int32Array, column: StringColumn, row: number, value: string): void {
  const at = row * 4;
  const record = inlineRecord(value);
  if (record !== null) {
    words[at] = record[0]!;
    words[at + 1] = record[1]!;
    words[at + 2] = record[2]!;
    words[at + 3] = record[3]!;
  } else {
    words.fill(0, at, at + 4);
    column.longRows.push(row);
    column.longValues.push(value);
  }
}

/** The buffers of a batch, to transfer it from a worker without copying. */
export function batchBuffers(batch: ColumnBatch): ArrayBuffer[] {
  const buffers: ArrayBuffer[] = [];
  for (const table of Object.values(batch)) {
    for (const c of table.columns) {
      if (c.kind === "str") {
        buffers.push(c.records.buffer as ArrayBuffer);
        continue;
      }
      buffers.push(c.values.buffer as ArrayBuffer);
      if (c.kind === "i64null") buffers.push(c.valid.buffer as ArrayBuffer);
    }
  }
  return buffers;
}

/**
 * Frees the arrays of `batch`, inserted and not read again: their buffers are detached (moved to
 * a clone dropped at once), so their memory goes at the next minor collection. Left to the
 * collector, a batch that waited in the queue for DuckDB had outlived two minor collections and
 * kept its memory until a full one (docs/performance.md, "Ingest"). The batch reads empty after.
 */
export function releaseBatch(batch: ColumnBatch): void {
  structuredClone(undefined, { transfer: [...new Set(batchBuffers(batch))] });
}
