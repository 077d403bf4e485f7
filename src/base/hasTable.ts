import type { DuckDBConnection } from "@duckdb/node-api";

/** True when the database has a table of this name (a warehouse of an older version may lack one). */
export async function hasTable(connection: DuckDBConnection, name: string): Promise<boolean> {
  const found = await connection.runAndReadAll(
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = $name",
    { name },
  );
  return Number(found.getRowObjectsJS()[0]!.n) > 0;
}
