import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "../base/errors.js";
import { fileNotFound } from "../base/fileNotFound.js";
import { DATA_TABLES, type DataTable } from "./schema.js";

/** A report column's presentation: title, unit and number format. */
export interface ReportColumn {
  /** The SQL column name. */
  name: string;
  /** Heading shown to people. Default: the name. */
  title: string;
  /** Unit of the values (e.g. `GiB·h`), shown beside the title. */
  unit?: string;
  /** Excel number format (e.g. `#,##0.00`, `@` for text), used by XLSX output. */
  format?: string;
}

/** A report: SQL over the warehouse tables plus column metadata (a `.sql` file and a `.json` beside it). */
export interface ReportDefinition {
  /** The name (file name without `.sql`). */
  name: string;
  title: string;
  description?: string;
  /** The SQL; it may use `$start`, `$end` (epoch seconds, half-open) and `$account_id` (NULL for all). */
  sql: string;
  /** The data tables the SQL reads (an in-memory load fills only these). Default: all. */
  tables: readonly DataTable[];
  /** Metadata of the columns, by name; result columns without metadata show their name. */
  columns: ReportColumn[];
  /** The `.sql` file. */
  file: string;
}

/** The folder of the shipped reports (`reports/` of the package). */
export const REPORTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../reports");

/** The names of the shipped reports. */
export function listReports(): string[] {
  if (!existsSync(REPORTS_DIR)) return [];
  return readdirSync(REPORTS_DIR)
    .filter((f) => f.endsWith(".sql"))
    .map((f) => f.slice(0, -4))
    .sort();
}

/**
 * Loads a report: a shipped one by name (`daily-totals`), or a user's `path/to/report.sql`
 * with an optional `report.json` beside it: `{ "title", "description", "tables": [...],
 * "columns": { "<name>": { "title", "unit", "format" } } }`.
 */
export function loadReportDefinition(nameOrPath: string): ReportDefinition {
  const isPath = nameOrPath.endsWith(".sql") || nameOrPath.includes("/");
  const file = isPath ? resolve(nameOrPath) : join(REPORTS_DIR, `${nameOrPath}.sql`);
  if (!existsSync(file)) {
    if (isPath) throw fileNotFound("report file", nameOrPath);
    throw new UsageError(
      `unknown report "${nameOrPath}" (shipped reports: ${listReports().join(", ")}; or give a path to a .sql file)`,
    );
  }
  const name = basename(file).replace(/\.sql$/, "");
  const metaFile = file.replace(/\.sql$/, ".json");
  let meta: Record<string, unknown> = {};
  if (existsSync(metaFile)) {
    try {
      meta = JSON.parse(readFileSync(metaFile, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`bad report metadata ${metaFile}: ${(error as Error).message}`, { cause: error });
    }
  }
  const known = new Set(["title", "description", "tables", "columns"]);
  const unknown = Object.keys(meta).filter((k) => !known.has(k));
  if (unknown.length > 0)
    throw new UsageError(
      `bad report metadata ${metaFile}: unknown key ${unknown.join(", ")} (use title, description, tables, columns)`,
    );
  const tables = (meta.tables as string[] | undefined) ?? [...DATA_TABLES];
  const badTables = tables.filter((t) => !(DATA_TABLES as readonly string[]).includes(t));
  if (badTables.length > 0)
    throw new UsageError(
      `bad report metadata ${metaFile}: unknown table ${badTables.join(", ")} (tables: ${DATA_TABLES.join(", ")})`,
    );
  const columns = Object.entries((meta.columns as Record<string, Partial<ReportColumn>> | undefined) ?? {}).map(
    ([columnName, c]) => ({
      name: columnName,
      title: c.title ?? columnName,
      ...(c.unit ? { unit: c.unit } : {}),
      ...(c.format ? { format: c.format } : {}),
    }),
  );
  return {
    name,
    title: typeof meta.title === "string" ? meta.title : name,
    ...(typeof meta.description === "string" ? { description: meta.description } : {}),
    sql: readFileSync(file, "utf8"),
    tables: tables as DataTable[],
    columns,
    file,
  };
}
