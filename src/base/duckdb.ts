import { createRequire } from "node:module";
import { totalmem } from "node:os";
import type * as DuckDBApi from "@duckdb/node-api";
import type DuckDBBindings from "@duckdb/node-bindings";

/**
 * DuckDB's packages, each loaded by the first function that needs it: importing cloudunits
 * loads neither, and billing files as they stream never does. Through `require`: both are
 * CommonJS, and `import()` of the API takes longer (Node scans every module of a CommonJS
 * package imported from ESM for the names it exports; docs/performance.md, "Why the code is
 * written so"). Either way it is the one instance of each module.
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

/** DuckDB's words when a query needs more memory than its `memory_limit` and cannot spill the rest to disk. */
const OUT_OF_MEMORY = /^Out of Memory Error/;

/** The most a query's memory is raised to: a quarter of the machine's memory, at least 1 GiB. */
export const MEMORY_CEILING_BYTES = Math.max(2 ** 30, Math.floor(totalmem() / 4));

/** The connection's `memory_limit` as DuckDB prints it (`64.0 MiB`). */
async function memoryLimitOf(connection: DuckDBApi.DuckDBConnection): Promise<string> {
  return String((await connection.runAndReadAll("SELECT current_setting('memory_limit')")).getRowsJS()[0]![0]);
}

/**
 * Runs `query` (which reads, and keeps nothing of a failed run) under the connection's
 * `memory_limit`; when DuckDB runs out of memory (a grouping of 20,000 machines' month did at
 * the 64 MiB a reading command caps it at, to keep its peak flat), doubles the limit and runs it
 * again, up to `ceilingBytes` (default `MEMORY_CEILING_BYTES`); past it, DuckDB's error. The cap stays raised for the
 * connection's later queries: they are of the same data.
 */
export async function withMemoryToSpare<T>(
  connection: DuckDBApi.DuckDBConnection,
  query: () => Promise<T>,
  ceilingBytes = MEMORY_CEILING_BYTES,
): Promise<T> {
  for (;;) {
    try {
      return await query();
    } catch (error) {
      if (!OUT_OF_MEMORY.test(error instanceof Error ? error.message : String(error))) throw error;
      const limit = parseBytes(await memoryLimitOf(connection));
      if (limit === undefined || limit >= ceilingBytes) throw error;
      const raised = Math.min(ceilingBytes, 2 * limit);
      await connection.run("SET memory_limit = $limit", { limit: `${Math.ceil(raised / 1024)}KiB` });
    }
  }
}

/**
 * Runs `query`, then sets the connection's `memory_limit` back to what it was before: a query that
 * needed more (`withMemoryToSpare` leaves the cap raised) does not leave the queries of other data
 * after it room to keep more of the file.
 */
export async function withMemoryLimitKept<T>(
  connection: DuckDBApi.DuckDBConnection,
  query: () => Promise<T>,
): Promise<T> {
  const before = await memoryLimitOf(connection);
  const result = await query();
  if ((await memoryLimitOf(connection)) !== before)
    await connection.run("SET memory_limit = $limit", { limit: before });
  return result;
}

/** Bytes of a size as DuckDB prints a setting (`64.0 MiB`, `1.5 GiB`, `512 bytes`), or undefined. */
export function parseBytes(text: string): number | undefined {
  const match = /^([\d.]+)\s*(bytes|KiB|MiB|GiB|TiB|KB|MB|GB|TB)$/.exec(text.trim());
  if (!match) return undefined;
  const scale: Record<string, number> = {
    bytes: 1,
    KiB: 2 ** 10,
    MiB: 2 ** 20,
    GiB: 2 ** 30,
    TiB: 2 ** 40,
    KB: 1e3,
    MB: 1e6,
    GB: 1e9,
    TB: 1e12,
  };
  return Number(match[1]) * scale[match[2]!]!;
}
