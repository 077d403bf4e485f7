import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { paramTypes } from "../base/period.js";
import { duckdbBindings, paramsNamedIn, withMemoryToSpare } from "../base/duckdb.js";
import { withRoom } from "../base/growArray.js";

/** A column being read: numbers go into a typed array as they come, other values into an array. */
class ColumnReader {
  numbers: Float64Array | Int32Array | undefined;
  values: unknown[] | undefined;
  length = 0;

  /** `capacity`: the numbers it starts with room for; `spare`: a column of the same type no longer used, whose memory it takes when it has that room. */
  constructor(
    readonly typeId: number,
    capacity = 4096,
    spare?: ArrayLike<unknown>,
  ) {
    if (typeId === TYPE_DOUBLE)
      this.numbers = spare instanceof Float64Array ? whole(spare, capacity) : new Float64Array(capacity);
    else if (typeId === TYPE_INTEGER)
      this.numbers = spare instanceof Int32Array ? whole(spare, capacity) : new Int32Array(capacity);
    else this.values = [];
  }

  /** Adds `rows` numbers from a vector's data. */
  addNumbers(from: Float64Array | Int32Array): void {
    const to = (this.numbers = withRoom(this.numbers!, this.length, this.length + from.length));
    to.set(from, this.length);
    this.length += from.length;
  }

  /** The column: a copy of its numbers when they fill less than half the room given (a result kept holds no more than twice itself). */
  result(): ArrayLike<unknown> {
    const numbers = this.numbers;
    if (numbers === undefined) return this.values!;
    return numbers.length > 4096 && numbers.length > 2 * this.length
      ? numbers.slice(0, this.length)
      : numbers.subarray(0, this.length);
  }
}

/** The whole memory of a spare column (a view from its start), or a new array of `capacity` when it has less. */
function whole<T extends Float64Array | Int32Array>(spare: T, capacity: number): T {
  const Kind = spare.constructor as new (buffer: ArrayBufferLike, offset?: number, length?: number) => T;
  const length = spare.buffer.byteLength / spare.BYTES_PER_ELEMENT;
  if (spare.byteOffset !== 0 || length < capacity) return new (spare.constructor as new (n: number) => T)(capacity);
  return new Kind(spare.buffer, 0, length);
}

const TYPE_INTEGER = 4;
const TYPE_DOUBLE = 11;

/**
 * The rows the last run of each query gave (a few dozen queries at most are kept). A query run
 * window after window (the stored facts of a day) gives about as many rows each time: its columns
 * start with room for a tenth more than the last time, up to `ROOM_GIVEN_ROWS`, instead of
 * doubling from 4,096 rows, each doubling leaving the smaller array to the garbage collector (which
 * external memory makes V8 collect often). Not more: columns of a day of 20,000 machines (about
 * 100 MB) made whole at once were held beside the last day's, not yet collected, and raised the peak.
 */
const lastRows = new Map<string, number>();
const LAST_ROWS_KEPT = 64;
const ROOM_GIVEN_ROWS = 65_536;
const capacityOf = (sql: string): number =>
  Math.max(4096, Math.min(ROOM_GIVEN_ROWS, Math.ceil((lastRows.get(sql) ?? 0) * 1.1)));
function keepRows(sql: string, rows: number): void {
  if (!lastRows.has(sql) && lastRows.size >= LAST_ROWS_KEPT) lastRows.clear();
  lastRows.set(sql, rows);
}

/**
 * Runs a query and returns its columns. DOUBLE and INTEGER columns are copied from each
 * chunk's vector data in one go (not node-api's per-value reading, with a BigInt per value where
 * a vector has a validity mask: docs/performance.md); they must hold no NULL (the
 * queries read measures through `measure`), which is checked. Other columns are read value by value.
 * `spare`: the columns of an earlier result the caller no longer uses (a window read before),
 * whose memory the numbers take where it is large enough, instead of new arrays for the collector.
 */
export async function readColumns(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType> = {},
  spare?: readonly ArrayLike<unknown>[],
): Promise<ArrayLike<unknown>[]> {
  return withMemoryToSpare(connection, () => streamColumns(connection, sql, values, types, spare));
}

/** `readColumns`' one run of the query. */
async function streamColumns(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType>,
  spare: readonly ArrayLike<unknown>[] | undefined,
): Promise<ArrayLike<unknown>[]> {
  const capacity = capacityOf(sql);
  let columns: ColumnReader[] | undefined;
  let read = 0;
  const typeIds = await streamChunks(connection, sql, values, types, (chunk, typeIds) => {
    columns ??= typeIds.map((typeId, c) => new ColumnReader(typeId, capacity, spare?.[c]));
    read += chunk[0]?.length ?? 0;
    columns.forEach((column, c) => {
      if (column.numbers === undefined) for (const value of chunk[c] as unknown[]) column.values!.push(value);
      else column.addNumbers(chunk[c] as Float64Array | Int32Array);
    });
  });
  keepRows(sql, read);
  return (columns ?? typeIds.map((typeId) => new ColumnReader(typeId))).map((c) => c.result());
}

/**
 * Runs a query and gives its result a chunk at a time (`onChunk`: each column's values in the
 * chunk, as `readColumns` reads them; valid until the next chunk), holding no more than a
 * chunk: for results too large to keep whole. The query runs once (no retry with more memory).
 * Returns the columns' types.
 */
export async function streamChunks(
  connection: DuckDBConnection,
  sql: string,
  values: Record<string, DuckDBValue>,
  types: Record<string, DuckDBType>,
  onChunk: (columns: ArrayLike<unknown>[], typeIds: readonly number[]) => void,
): Promise<readonly number[]> {
  const bindings = duckdbBindings();
  const named = { ...paramTypes(), ...types };
  // streamed: DuckDB makes each chunk as it is fetched, instead of holding the whole result
  const result = await connection.stream(sql, paramsNamedIn(sql, values), paramsNamedIn(sql, named));
  const typeIds = Array.from({ length: result.columnCount }, (_, c) => result.columnTypeId(c));
  for (let chunk = await result.fetchChunk(); chunk !== null && chunk.rowCount > 0; chunk = await result.fetchChunk()) {
    const rows = chunk.rowCount;
    const columns = typeIds.map((typeId, c): ArrayLike<unknown> => {
      if (typeId !== TYPE_DOUBLE && typeId !== TYPE_INTEGER) {
        const vector = chunk.getColumnVector(c);
        return Array.from({ length: rows }, (_, r) => vector.getItem(r));
      }
      const vector = bindings.data_chunk_get_vector(chunk.chunk, c);
      const validity = bindings.vector_get_validity(vector, Math.ceil(rows / 64) * 8);
      if (validity && validity.length > 0 && !allValid(validity, rows))
        throw new Error(`internal: a NULL in column ${c} of: ${sql}`);
      const width = typeId === TYPE_DOUBLE ? 8 : 4;
      const bytes = bindings.vector_get_data(vector, rows * width);
      const aligned = bytes.byteOffset % width === 0 ? bytes : bytes.slice();
      return typeId === TYPE_DOUBLE
        ? new Float64Array(aligned.buffer, aligned.byteOffset, rows)
        : new Int32Array(aligned.buffer, aligned.byteOffset, rows);
    });
    onChunk(columns, typeIds);
  }
  return typeIds;
}

/** True when the first `rows` bits of a validity mask are set. */
function allValid(mask: Uint8Array, rows: number): boolean {
  for (let r = 0; r < rows; r++) if ((mask[r >> 3]! & (1 << (r & 7))) === 0) return false;
  return true;
}
