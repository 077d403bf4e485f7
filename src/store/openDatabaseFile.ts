import { existsSync } from "node:fs";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { UsageError } from "../errors.js";
import { SCHEMA_SQL } from "./schema.js";
import { duckdbApi } from "./duckdb.js";

/** Options of {@link openDatabaseFile}. */
export interface OpenDatabaseFileOptions {
  /** Open for queries only (several readers may share the file). Default false: open to write, creating the file and its tables. */
  readOnly?: boolean;
  /**
   * DuckDB's memory limit, bytes (beyond it, DuckDB evicts cached blocks and spills to a
   * temporary directory beside the file). Default: DuckDB's, 80% of the machine's memory.
   */
  memoryLimitBytes?: number;
}

/**
 * Opens a warehouse database file made by `ingest`. Read-only, the file must exist and hold
 * the manifest; to write, it is created when missing and the tables of schema.ts are
 * created when absent. DuckDB's file lock (one writer, or many readers) becomes a
 * UsageError (code DB_LOCKED) saying another process is using the file.
 */
export async function openDatabaseFile(
  file: string,
  options: OpenDatabaseFileOptions = {},
): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  const readOnly = options.readOnly ?? false;
  if (readOnly && !existsSync(file)) {
    throw new UsageError(`no database ${file}: make it with \`cloudunits ingest <inputs...> --db ${file}\``, { code: "DB_MISSING" });
  }
  let instance: DuckDBInstance;
  try {
    const settings: Record<string, string> = readOnly ? { access_mode: "READ_ONLY" } : {};
    if (options.memoryLimitBytes !== undefined) settings.memory_limit = `${Math.ceil(options.memoryLimitBytes / 1024)}KiB`;
    instance = await duckdbApi().DuckDBInstance.create(file, settings);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/lock/i.test(message)) {
      const holder = /held in (.*?)\. See/.exec(message)?.[1];
      throw new UsageError(
        `another process is ${readOnly ? "writing" : "writing (or reading)"} ${file}${holder ? ` (${holder})` : ""}: wait for it to finish, then run again`,
        { code: "DB_LOCKED", cause: error },
      );
    }
    throw new UsageError(`cannot open database ${file}: ${message}`, { code: "DB_OPEN", cause: error });
  }
  const connection = await instance.connect();
  try {
    if (readOnly) {
      const found = await connection.runAndReadAll(
        "SELECT count(*) AS n FROM information_schema.tables WHERE table_name IN ('files', 'account_hours')",
      );
      if (Number(found.getRowObjectsJS()[0]!.n) < 2) {
        throw new UsageError(`${file} is not a cloudunits database (no manifest): make it with \`cloudunits ingest\``, { code: "DB_NOT_WAREHOUSE" });
      }
    } else {
      await connection.run(SCHEMA_SQL);
    }
  } catch (error) {
    connection.closeSync();
    instance.closeSync();
    throw error;
  }
  return { instance, connection };
}
