import type { DuckDBConnection } from "@duckdb/node-api";
import type { Names } from "../billing/names.js";

/** A name the service listed: an account, or a cloud space with its account. */
export interface ListedName {
  kind: "account" | "cloudspace";
  id: number;
  name: string;
  /** A cloud space's account; undefined for an account. */
  accountId?: number;
}

/** The last name listed for each `kind:id` (the service's list order: a later item wins). */
function lastOfEach(names: readonly ListedName[]): ListedName[] {
  const byKey = new Map<string, ListedName>();
  for (const n of names) byKey.set(`${n.kind}:${n.id}`, n);
  return [...byKey.values()];
}

/**
 * Stores names listed by the service in the warehouse's `entity_names` table, in one
 * transaction: a name already there is replaced (the service's current name wins; of an id
 * listed twice, the later item). The names are appended in bulk to a temporary table and merged
 * with one statement, not one statement each.
 */
export async function writeEntityNames(connection: DuckDBConnection, names: readonly ListedName[]): Promise<void> {
  await connection.run("BEGIN TRANSACTION");
  try {
    await connection.run(
      "CREATE OR REPLACE TEMP TABLE entity_names_listed (kind VARCHAR NOT NULL, id BIGINT NOT NULL, name VARCHAR NOT NULL, account_id BIGINT)",
    );
    const appender = await connection.createAppender("entity_names_listed", "main", "temp");
    try {
      for (const n of lastOfEach(names)) {
        appender.appendVarchar(n.kind);
        appender.appendBigInt(BigInt(n.id));
        appender.appendVarchar(n.name);
        if (n.accountId === undefined) appender.appendNull();
        else appender.appendBigInt(BigInt(n.accountId));
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    await connection.run(
      "INSERT OR REPLACE INTO entity_names (kind, id, name, account_id) SELECT kind, id, name, account_id FROM entity_names_listed",
    );
    await connection.run("DROP TABLE entity_names_listed");
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

/**
 * The names stored by `sync` (keyed `kind:id`, as a names file gives them); empty for a
 * warehouse without any, or made before the table existed.
 */
export async function readEntityNames(connection: DuckDBConnection): Promise<Names> {
  const exists = await connection.runAndReadAll(
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'entity_names'",
  );
  const names = new Map<string, string>();
  if (Number(exists.getRowObjectsJS()[0]!.n) === 0) return names;
  const rows = (
    await connection.runAndReadAll("SELECT kind, id, name FROM entity_names ORDER BY kind, id")
  ).getRowObjectsJS();
  for (const row of rows) names.set(`${String(row.kind)}:${Number(row.id)}`, String(row.name));
  return names;
}
