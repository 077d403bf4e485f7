/**
 * The part of an arquero table's API that the library's types promise. `store.query()` and
 * `store.table()` return a real arquero `ColumnTable` (every method of arquero works on it),
 * typed as this interface because arquero's own declaration files fail to type-check in an
 * app with `strict` and `skipLibCheck: false` (arquero 7 and 8 alike): naming them in our
 * public `.d.ts` would break such apps. `src/open.ts` assigns arquero's table to this
 * interface, so the compiler checks that every signature here is one arquero has.
 */

/**
 * A value of a table cell, as DuckDB gives it to JavaScript: numbers (BIGINT as `number` when
 * every value of the column is a safe integer, else `bigint`; DECIMAL as `number`), text, booleans,
 * `Date` for dates and timestamps, bytes, lists, structs, and `null`.
 */
export type ArqueroValue =
  null | boolean | number | bigint | string | Uint8Array | Date | ArqueroValue[] | { [key: string]: ArqueroValue };

/**
 * A table expression: arquero's string form (`"d => d.cu_hours > 1"`, `"d => op.sum(d.cu_hours)"`)
 * or a function of the row (`d`) and the table's parameters (`$`).
 */
// Rows and parameters are `any`, as arquero types them: a row's columns are known only at run time.
export type ArqueroExpr = string | ((d: any, $: any) => unknown);

/** Column names, or expressions by output name, as `groupby`, `orderby` and `select` take them. */
export type ArqueroKeys = string | number | Record<string, ArqueroExpr> | (string | number)[];

/** An arquero table (`aq.table(...)`): read it, transform it, or format it. */
export interface ArqueroTable {
  /** Rows after any filter. */
  numRows(): number;
  /** Columns. */
  numCols(): number;
  /** Column names, in order. */
  columnNames(): string[];
  /** The value of column `name` at row index `row` (default 0). */
  get(name: string, row?: number): ArqueroValue;
  /** Every value of column `name`, in row order. */
  array(name: string): ArqueroValue[] | ArrayLike<ArqueroValue>;
  /** One row as an object of column name → value (default row 0). */
  object(row?: number): object;
  /** The rows as objects; `limit`, `offset` and `columns` narrow them. */
  objects(options?: { limit?: number; offset?: number; columns?: string | string[] }): object[];
  /** Rows for which `criteria` holds. */
  filter(criteria: ArqueroExpr): ArqueroTable;
  /** New or replaced columns, computed from `values`' expressions by name. */
  derive(values: Record<string, ArqueroExpr>): ArqueroTable;
  /** Some columns, renamed when given as `{ old: "new" }`. */
  select(...columns: (string | number | Record<string, string>)[]): ArqueroTable;
  /** Rows sorted by the keys, ascending (arquero's `desc("x")` for descending). */
  orderby(...keys: ArqueroKeys[]): ArqueroTable;
  /** Groups for `rollup`, `count` and grouped `derive`. */
  groupby(...keys: ArqueroKeys[]): ArqueroTable;
  /** One row per group of aggregate expressions (`"d => op.sum(d.x)"`). */
  rollup(values?: Record<string, ArqueroExpr>): ArqueroTable;
  /** One row per group with its row count (column `count`, or `options.as`). */
  count(options?: { as?: string }): ArqueroTable;
  /** Rows from `start` up to, not including, `end`. */
  slice(start?: number, end?: number): ArqueroTable;
  /** The table as CSV text. */
  toCSV(): string;
  /** The table as JSON text (`{"schema":...,"data":{column: [...]}}`). */
  toJSON(): string;
  /** The table as a Markdown table. */
  toMarkdown(): string;
}
