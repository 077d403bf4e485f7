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

/**
 * Stores names listed by the service in the warehouse's `entity_names` table, in one
 * transaction: a name already there is replaced (the service's current name wins).
 */
export async function writeEntityNames(connection: DuckDBConnection, names: readonly ListedName[]): Promise<void> {
  await connection.run("BEGIN TRANSACTION");
  try {
    for (const n of names) {
      await connection.run(
        "INSERT OR REPLACE INTO entity_names (kind, id, name, account_id) VALUES ($kind, $id, $name, $account)",
        { kind: n.kind, id: n.id, name: n.name, account: n.accountId ?? null },
      );
    }
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
  const exists = await connection.runAndReadAll("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'entity_names'");
  const names = new Map<string, string>();
  if (Number(exists.getRowObjectsJS()[0]!.n) === 0) return names;
  const rows = (await connection.runAndReadAll("SELECT kind, id, name FROM entity_names ORDER BY kind, id")).getRowObjectsJS();
  for (const row of rows) names.set(`${String(row.kind)}:${Number(row.id)}`, String(row.name));
  return names;
}
