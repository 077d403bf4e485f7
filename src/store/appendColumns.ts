import duckdb from "@duckdb/node-bindings";
import { DuckDBDataChunk, type DuckDBAppender, type DuckDBConnection, type DuckDBType } from "@duckdb/node-api";
import { TABLE_COLUMNS, type ColumnBatch, type ColumnKind, type TableColumns } from "./columnBatch.js";
import type { DataTable } from "./schema.js";

/** Rows per DuckDB data chunk: DuckDB's vector size, the most a chunk holds. */
const CHUNK_ROWS = 2048;

const BYTES: Record<Exclude<ColumnKind, "str">, number> = { i64: 8, i64null: 8, i32: 4, f64: 8, bool: 1 };

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
 * Appends staged columns to one table through DuckDB data chunks: each column slice is
 * copied into the chunk's vector in one native call (numbers, and strings short enough
 * for DuckDB to inline them in their 16-byte records); longer strings are assigned one by
 * one; full chunks go to the table's appender.
 */
class TableAppender {
  private readonly types: DuckDBType[];
  private readonly kinds: readonly ColumnKind[];
  private chunk: DuckDBDataChunk | undefined;
  private vectors: duckdb.Vector[] = [];
  private validity: (Uint8Array | undefined)[] = [];
  private filled = 0;

  constructor(private readonly appender: DuckDBAppender, table: DataTable) {
    this.types = Array.from({ length: appender.columnCount }, (_, i) => appender.columnType(i));
    this.kinds = TABLE_COLUMNS[table];
    if (this.kinds.length !== this.types.length) {
      throw new Error(`table ${table} has ${this.types.length} columns, the loader stages ${this.kinds.length}`);
    }
  }

  append(data: TableColumns): void {
    let offset = 0;
    while (offset < data.rows) {
      if (this.chunk === undefined) this.start();
      const take = Math.min(CHUNK_ROWS - this.filled, data.rows - offset);
      data.columns.forEach((column, i) => {
        const vector = this.vectors[i]!;
        if (column.kind === "str") {
          const records = column.records;
          duckdb.copy_data_to_vector(vector, this.filled * 16, records.buffer as ArrayBuffer, records.byteOffset + offset * 16, take * 16);
          const rows = column.longRows;
          for (let k = lowerBound(rows, offset); k < rows.length && rows[k]! < offset + take; k++) {
            duckdb.vector_assign_string_element(vector, this.filled + rows[k]! - offset, column.longValues[k]!);
          }
          return;
        }
        const size = BYTES[column.kind];
        const source = column.values;
        duckdb.copy_data_to_vector(vector, this.filled * size, source.buffer as ArrayBuffer, source.byteOffset + offset * size, take * size);
        if (column.kind === "i64null") {
          const mask = this.validity[i]!;
          for (let r = 0; r < take; r++) {
            if (column.valid[offset + r] === 0) mask[(this.filled + r) >> 3]! &= ~(1 << ((this.filled + r) & 7));
          }
        }
      });
      this.filled += take;
      offset += take;
      if (this.filled === CHUNK_ROWS) this.flush();
    }
  }

  private start(): void {
    this.chunk = DuckDBDataChunk.create(this.types, CHUNK_ROWS);
    this.vectors = this.types.map((_, i) => duckdb.data_chunk_get_vector(this.chunk!.chunk, i));
    this.validity = this.kinds.map((kind) => (kind === "i64null" ? new Uint8Array(CHUNK_ROWS / 8).fill(0xff) : undefined));
    this.filled = 0;
  }

  /** Appends the rows staged in the current chunk. */
  flush(): void {
    if (this.chunk === undefined) return;
    if (this.filled > 0) {
      this.validity.forEach((mask, i) => {
        if (mask === undefined || mask.every((b) => b === 0xff)) return;
        duckdb.vector_ensure_validity_writable(this.vectors[i]!);
        duckdb.copy_data_to_vector_validity(this.vectors[i]!, 0, mask.buffer as ArrayBuffer, 0, mask.byteLength);
      });
      this.chunk.rowCount = this.filled;
      this.appender.appendDataChunk(this.chunk);
    }
    this.chunk = undefined;
    this.filled = 0;
  }

  close(): void {
    this.appender.closeSync();
  }
}

/**
 * Appends staged column batches to the data tables, in the connection's current
 * transaction (or auto-committed). Tables missing from a batch are left alone.
 */
export class ColumnAppender {
  private readonly appenders = new Map<DataTable, TableAppender>();

  private constructor() {}

  /** Opens an appender for each of `tables`. */
  static async open(connection: DuckDBConnection, tables: Iterable<DataTable>): Promise<ColumnAppender> {
    const result = new ColumnAppender();
    try {
      for (const table of tables) result.appenders.set(table, new TableAppender(await connection.createAppender(table), table));
    } catch (error) {
      result.close();
      throw error;
    }
    return result;
  }

  append(batch: ColumnBatch): void {
    for (const [table, appender] of this.appenders) {
      const data = batch[table];
      if (data !== undefined && data.rows > 0) appender.append(data);
    }
  }

  /** Appends every staged row and closes the appenders (flushing them to the tables). */
  finish(): void {
    try {
      for (const appender of this.appenders.values()) appender.flush();
    } finally {
      this.close();
    }
  }

  /** Closes the appenders. */
  close(): void {
    for (const appender of this.appenders.values()) appender.close();
    this.appenders.clear();
  }
}
