import type { DuckDBConnection, DuckDBDataChunk, DuckDBTableFunction, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import {
  keptColumns,
  TABLE_COLUMNS,
  type ColumnBatch,
  type ColumnKind,
  type ColumnSelection,
  type TableColumns,
} from "../load/columnBatch.js";
import type { DataTable } from "./schema.js";
import { duckdbApi, duckdbBindings } from "../base/duckdb.js";

/** Rows per DuckDB data chunk: DuckDB's vector size, the most a chunk holds. */
const CHUNK_ROWS = 2048;
/** The table function reading staged columns, registered in every database that loads them. */
const FUNCTION_NAME = "cloudunits_staged_columns";

const typeOf = (kind: ColumnKind): DuckDBType => {
  const { BIGINT, BOOLEAN, DOUBLE, INTEGER, VARCHAR } = duckdbApi();
  return { i64: BIGINT, i64null: BIGINT, i32: INTEGER, f64: DOUBLE, bool: BOOLEAN, str: VARCHAR }[kind];
};
const BYTES: Record<Exclude<ColumnKind, "str">, number> = { i64: 8, i64null: 8, i32: 4, f64: 8, bool: 1 };

/** Staged rows handed to one INSERT, read part after part. */
interface Scan {
  kinds: readonly ColumnKind[];
  parts: readonly TableColumns[];
  rows: number;
}

/** Where a running scan is: the part and the row within it. */
interface Cursor {
  part: number;
  offset: number;
}

/** The scans of running INSERTs, by the key their statement names. */
const scans = new Map<string, Scan>();
let nextKey = 0;

/** The first index of ascending `rows` whose value is at least `row`. */
function lowerBound(rows: readonly number[], row: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (rows[mid]! < row) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Copies rows `[offset, offset + count)` of `data` into the chunk: each number column and
 * the inline string records in one native copy per column, strings too long to inline one
 * by one, the validity of nullable columns (and of measures with impossible values) as a bit mask.
 */
function fillChunk(output: DuckDBDataChunk, data: TableColumns, offset: number, count: number): void {
  const duckdb = duckdbBindings();
  output.rowCount = count;
  data.columns.forEach((column, i) => {
    const vector = duckdb.data_chunk_get_vector(output.chunk, i);
    if (column.kind === "str") {
      const records = column.records;
      duckdb.copy_data_to_vector(
        vector,
        0,
        records.buffer as ArrayBuffer,
        records.byteOffset + offset * 16,
        count * 16,
      );
      const rows = column.longRows;
      for (let k = lowerBound(rows, offset); k < rows.length && rows[k]! < offset + count; k++) {
        duckdb.vector_assign_string_element(vector, rows[k]! - offset, column.longValues[k]!);
      }
      return;
    }
    const size = BYTES[column.kind];
    const values = column.values;
    duckdb.copy_data_to_vector(
      vector,
      0,
      values.buffer as ArrayBuffer,
      values.byteOffset + offset * size,
      count * size,
    );
    if (column.kind === "i64null") {
      const mask = new Uint8Array(CHUNK_ROWS / 8).fill(0xff);
      for (let r = 0; r < count; r++) {
        if (column.valid[offset + r] === 0) mask[r >> 3]! &= ~(1 << (r & 7));
      }
      duckdb.vector_ensure_validity_writable(vector);
      duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer, 0, mask.byteLength);
    } else if (
      (column.kind === "f64" || column.kind === "i32") &&
      column.nulls !== undefined &&
      column.nulls.length > 0
    ) {
      // impossible values (docs/warehouse.md): a few listed rows, NULL
      const nulls = column.nulls;
      const first = lowerBound(nulls, offset);
      if (first < nulls.length && nulls[first]! < offset + count) {
        const mask = new Uint8Array(CHUNK_ROWS / 8).fill(0xff);
        for (let k = first; k < nulls.length && nulls[k]! < offset + count; k++) {
          const r = nulls[k]! - offset;
          mask[r >> 3]! &= ~(1 << (r & 7));
        }
        duckdb.vector_ensure_validity_writable(vector);
        duckdb.copy_data_to_vector_validity(vector, 0, mask.buffer, 0, mask.byteLength);
      }
    }
  });
}

/**
 * The table function `cloudunits_staged_columns(key)`: the rows of the scan registered
 * under `key`, a chunk per call. DuckDB calls it from the INSERT it runs on its own
 * threads; each call runs on the JavaScript thread and only copies one slice of arrays.
 */
function stagedColumnsFunction(): DuckDBTableFunction {
  const { DuckDBTableFunction, VARCHAR } = duckdbApi();
  return DuckDBTableFunction.create({
    name: FUNCTION_NAME,
    parameterTypes: [VARCHAR],
    bindFunction: (info) => {
      const key = String(info.getParameter(0));
      const scan = scans.get(key);
      if (scan === undefined) {
        info.setError(`no staged columns under key ${key}`);
        return;
      }
      scan.kinds.forEach((kind, i) => info.addResultColumn(`c${i}`, typeOf(kind)));
      info.setCardinality(scan.rows, true);
      info.setBindData({ key });
    },
    initFunction: (info) => info.setInitData({ part: 0, offset: 0 } satisfies Cursor),
    mainFunction: (info, output) => {
      const { key } = info.bindData as { key: string };
      const scan = scans.get(key);
      const cursor = info.initData as Cursor;
      if (scan === undefined) {
        info.setError(`the staged columns under key ${key} are gone`); // never a silent short insert
        return;
      }
      let data = scan.parts[cursor.part];
      while (data !== undefined && cursor.offset >= data.rows) {
        cursor.part++;
        cursor.offset = 0;
        data = scan.parts[cursor.part];
      }
      if (data === undefined) {
        output.rowCount = 0;
        return;
      }
      const count = Math.min(CHUNK_ROWS, data.rows - cursor.offset);
      fillChunk(output, data, cursor.offset, count);
      cursor.offset += count;
    },
  });
}

/** Connections whose database has the table function. */
const registered = new WeakSet<DuckDBConnection>();

/**
 * Registers the table function in the database of `connections` (all of one database)
 * through the first one, outside any transaction: registering inside a transaction takes
 * a catalog lock that fails another connection's registration until it commits.
 */
export function registerStagedColumns(connections: readonly DuckDBConnection[]): void {
  if (connections.every((c) => registered.has(c))) return;
  connections[0]!.registerTableFunction(stagedColumnsFunction());
  for (const c of connections) registered.add(c);
}

/**
 * Inserts staged rows of `table` (parts in order, columns as `selection` keeps them) with
 * `INSERT INTO table (columns) SELECT * FROM cloudunits_staged_columns(key)`: DuckDB runs
 * the insert on its own threads, so the JavaScript thread stays free to read and decode
 * while a batch goes in; it only copies a slice of arrays per chunk. Runs in the
 * connection's current transaction (or auto-committed).
 */
export async function insertColumns(
  connection: DuckDBConnection,
  table: DataTable,
  parts: readonly (TableColumns | undefined)[],
  selection?: ColumnSelection,
): Promise<void> {
  const kept = parts.filter((p): p is TableColumns => p !== undefined && p.rows > 0);
  if (kept.length === 0) return;
  const columns = keptColumns(table, selection).map((i) => TABLE_COLUMNS[table][i]!);
  for (const part of kept) {
    if (part.columns.length !== columns.length || part.columns.some((c, i) => c.kind !== columns[i]!.kind)) {
      throw new Error(
        `the staged columns of ${table} do not match its columns ${columns.map((c) => c.name).join(", ")}`,
      );
    }
  }
  const names = columns.map((c) => c.name).join(", ");
  await insertStaged(
    connection,
    (staged) => `INSERT INTO ${table} (${names}) SELECT * FROM ${staged}`,
    columns.map((c) => c.kind),
    kept,
  );
}

/**
 * Runs `statement`, made of the name of the staged rows (`cloudunits_staged_columns($key)`, columns
 * `c0`, `c1`... of `kinds`: `parts` in order), with `values` for its other parameters, in the
 * connection's current transaction (or auto-committed). DuckDB runs it on its own threads and
 * copies the rows a chunk at a time (one native call per column): no value per row is made.
 */
export async function insertStaged(
  connection: DuckDBConnection,
  statement: (staged: string) => string,
  kinds: readonly ColumnKind[],
  parts: readonly TableColumns[],
  values: Record<string, DuckDBValue> = {},
): Promise<void> {
  registerStagedColumns([connection]);
  const key = String(nextKey++);
  scans.set(key, { kinds, parts, rows: parts.reduce((n, p) => n + p.rows, 0) });
  const sql = statement(`${FUNCTION_NAME}($key)`);
  try {
    try {
      await connection.run(sql, { ...values, key });
    } catch (error) {
      // Registered in a transaction that was rolled back since: register it again.
      if (!String((error as Error).message).includes(`Table Function with name ${FUNCTION_NAME} does not exist`))
        throw error;
      connection.registerTableFunction(stagedColumnsFunction());
      await connection.run(sql, { ...values, key });
    }
  } finally {
    scans.delete(key);
  }
}

/** UTF-8 bytes of the strings of `batch` too long to inline in their 16-byte record (what DuckDB keeps apart, in memory, until a commit). */
export function longStringBytes(batch: ColumnBatch): number {
  let bytes = 0;
  for (const table of Object.values(batch)) {
    for (const column of table?.columns ?? []) {
      if (column.kind === "str") for (const value of column.longValues) bytes += Buffer.byteLength(value);
    }
  }
  return bytes;
}

/** Inserts staged batches (in order) into each of `tables`, one table after the other. */
export async function insertBatches(
  connection: DuckDBConnection,
  batches: readonly ColumnBatch[],
  tables: Iterable<DataTable>,
  selection?: ColumnSelection,
): Promise<void> {
  for (const table of tables)
    await insertColumns(
      connection,
      table,
      batches.map((b) => b[table]),
      selection,
    );
}
