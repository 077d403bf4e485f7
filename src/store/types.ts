import type { DuckDBConnection } from "@duckdb/node-api";

export type { LoadReport, SkippedFile } from "../load/loadReport.js";
import type { LoadReport } from "../load/loadReport.js";

/** Where a store's data comes from: input paths (loaded in memory) or a `.duckdb` file. */
export type StoreSource = string[] | { db: string };

/** An open warehouse: a DuckDB connection over the tables of schema.ts. */
export interface Warehouse {
  connection: DuckDBConnection;
  load: LoadReport;
  /** The file it was opened from (`{ db }`); absent for inputs loaded in memory. */
  db?: string;
  close(): void;
}
