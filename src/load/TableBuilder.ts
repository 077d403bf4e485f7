import {
  keptColumns,
  TABLE_COLUMNS,
  type ColumnData,
  type ColumnSelection,
  type ColumnSpec,
  type TableColumns,
} from "./columnBatch.js";
import type { DataTable } from "./dataTables.js";

/** Rows a table starts with, at least; it doubles when full. */
const MIN_ROWS = 64;
/**
 * Input bytes per row of each table in typical files (a VM with two disks and one or two
 * NICs takes about 340 bytes), to size the arrays once for a group instead of growing them.
 */
const BYTES_PER_ROW: Record<DataTable, number> = {
  account_hours: 16384,
  cloudspaces: 8192,
  machines: 320,
  gateways: 8192,
  disks: 160,
  nics: 240,
  machine_facts: 320,
  gateway_facts: 8192,
};

/**
 * The growing columns of one table; `rows` are written, the arrays may hold more. Columns
 * are indexed as in TABLE_COLUMNS; a column not kept is `undefined`, and writing it is a
 * no-op.
 */
export class TableBuilder {
  rows = 0;
  capacity = 0;
  columns: (ColumnData | undefined)[] = [];
  /** For each kept string column, its records as int32 words (four per row). */
  words: (Int32Array | undefined)[] = [];
  private readonly specs: readonly ColumnSpec[];
  private readonly kept: readonly number[];

  constructor(table: DataTable, inputBytes: number, selection: ColumnSelection | undefined) {
    this.specs = TABLE_COLUMNS[table];
    this.kept = keptColumns(table, selection);
    this.grow(Math.max(MIN_ROWS, Math.ceil(inputBytes / BYTES_PER_ROW[table])));
  }

  /** The next row's index, growing the arrays when full. */
  next(): number {
    if (this.rows === this.capacity) this.grow(this.capacity * 2);
    return this.rows++;
  }

  private grow(capacity: number): void {
    const old = this.columns;
    this.columns = this.specs.map(({ kind }, i): ColumnData | undefined => {
      if (!this.kept.includes(i)) return undefined;
      const was = old[i];
      switch (kind) {
        case "i64":
          return { kind, values: copied(new Int32Array(capacity * 2), was) };
        case "i64null":
          return {
            kind,
            values: copied(new Int32Array(capacity * 2), was),
            valid: copiedValid(new Uint8Array(capacity), was),
          };
        case "i32":
          return { kind, values: copied(new Int32Array(capacity), was), nulls: nullsOf(was) };
        case "f64":
          return { kind, values: copied(new Float64Array(capacity), was), nulls: nullsOf(was) };
        case "bool":
          return { kind, values: copied(new Uint8Array(capacity), was) };
        case "str": {
          const records = new Uint8Array(capacity * 16);
          if (was?.kind === "str") {
            records.set(was.records);
            return { kind, records, longRows: was.longRows, longValues: was.longValues };
          }
          return { kind, records, longRows: [], longValues: [] };
        }
      }
    });
    this.words = this.columns.map((c) =>
      c?.kind === "str" ? new Int32Array(c.records.buffer, c.records.byteOffset, c.records.length >> 2) : undefined,
    );
    this.capacity = capacity;
  }

  /** Forgets the rows from `rows` on (an account-hour that failed to decode). */
  truncate(rows: number): void {
    this.rows = rows;
    for (const c of this.columns) {
      if ((c?.kind === "i32" || c?.kind === "f64") && c.nulls !== undefined) {
        while (c.nulls.length > 0 && c.nulls[c.nulls.length - 1]! >= rows) c.nulls.pop();
      }
      if (c?.kind !== "str") continue;
      let keep = c.longRows.length;
      while (keep > 0 && c.longRows[keep - 1]! >= rows) keep--;
      c.longRows.length = keep;
      c.longValues.length = keep;
    }
  }

  /** The written rows of the kept columns, as views of the arrays. */
  finish(): TableColumns {
    const rows = this.rows;
    return {
      rows,
      columns: this.kept.map((i): ColumnData => {
        const c = this.columns[i]!;
        switch (c.kind) {
          case "i64":
            return { kind: c.kind, values: c.values.subarray(0, rows * 2) };
          case "i64null":
            return { kind: c.kind, values: c.values.subarray(0, rows * 2), valid: c.valid.subarray(0, rows) };
          case "i32":
            return { kind: c.kind, values: c.values.subarray(0, rows), nulls: c.nulls };
          case "f64":
            return { kind: c.kind, values: c.values.subarray(0, rows), nulls: c.nulls };
          case "bool":
            return { kind: c.kind, values: c.values.subarray(0, rows) };
          case "str":
            return {
              kind: c.kind,
              records: c.records.subarray(0, rows * 16),
              longRows: c.longRows,
              longValues: c.longValues,
            };
        }
      }),
    };
  }
}

function copied<T extends Int32Array | Float64Array | Uint8Array>(into: T, was: ColumnData | undefined): T {
  if (was !== undefined && was.kind !== "str") (into as Int32Array).set(was.values as Int32Array);
  return into;
}

function nullsOf(was: ColumnData | undefined): number[] | undefined {
  return was?.kind === "i32" || was?.kind === "f64" ? was.nulls : undefined;
}

function copiedValid(into: Uint8Array, was: ColumnData | undefined): Uint8Array {
  if (was?.kind === "i64null") into.set(was.valid);
  return into;
}
