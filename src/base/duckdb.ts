import { createRequire } from "node:module";
import type * as DuckDBApi from "@duckdb/node-api";
import type DuckDBBindings from "@duckdb/node-bindings";

/**
 * DuckDB's packages, each loaded by the first function that needs it: importing cloudunits
 * loads neither, and billing files as they stream never does. Through `require`: both are
 * CommonJS, and `import()` of the API took twice as long (0.21 s against 0.11 s, measured
 * alternating: Node scans every module of a CommonJS package imported from ESM for the names
 * it exports). Either way it is the one instance of each module.
 */
const require = createRequire(import.meta.url);
let api: typeof DuckDBApi | undefined;
let bindings: typeof DuckDBBindings | undefined;

/**
 * Settings of every DuckDB instance cloudunits makes: DuckDB never loads or downloads an
 * extension by itself (a SQLite file opened as a database would make it fetch the `sqlite`
 * extension from the network).
 */
export const DUCKDB_SETTINGS: Readonly<Record<string, string>> = {
  autoload_known_extensions: "false",
  autoinstall_known_extensions: "false",
};

/** `@duckdb/node-api`. */
export function duckdbApi(): typeof DuckDBApi {
  return (api ??= require("@duckdb/node-api") as typeof DuckDBApi);
}

/** `@duckdb/node-bindings`, the native functions under the API (vector data, chunks). */
export function duckdbBindings(): typeof DuckDBBindings {
  return (bindings ??= require("@duckdb/node-bindings") as typeof DuckDBBindings);
}

/**
 * The entries of `params` (values, or their types) that `sql` names as `$name`: DuckDB refuses
 * a value for a parameter the query lacks, so a caller binding a common set passes these.
 */
export function paramsNamedIn<T>(sql: string, params: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(params).filter(([name]) => new RegExp(`\\$${name}\\b`).test(sql)));
}
