import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { readEntityNames, writeEntityNames, type ListedName } from "../../src/store/entityNames.js";

const dir = mkdtempSync(join(tmpdir(), "cloudunits-names-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withWarehouse<T>(
  file: string,
  fn: (connection: Awaited<ReturnType<typeof openDatabaseFile>>["connection"]) => Promise<T>,
): Promise<T> {
  const { instance, connection } = await openDatabaseFile(file);
  try {
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("writeEntityNames", () => {
  it("stores every listed name, the later of an id listed twice and the newer of two runs winning", async () => {
    const db = join(dir, "names.duckdb");
    const first: ListedName[] = [
      { kind: "account", id: 1, name: "Old name" },
      { kind: "account", id: 2, name: "Two" },
      { kind: "cloudspace", id: 1, name: "Space 1, quote ' and \"", accountId: 2 },
    ];
    const second: ListedName[] = [
      { kind: "account", id: 1, name: "First listing" },
      { kind: "account", id: 1, name: "New name" },
      { kind: "account", id: 4294967295, name: "Highest id" },
    ];
    const names = await withWarehouse(db, async (connection) => {
      await writeEntityNames(connection, first);
      await writeEntityNames(connection, second);
      const accountIds = (
        await connection.runAndReadAll("SELECT id, account_id FROM entity_names WHERE kind = 'cloudspace'")
      ).getRowObjectsJS();
      expect(accountIds).toEqual([{ id: 1n, account_id: 2n }]);
      return readEntityNames(connection);
    });
    expect(Object.fromEntries(names)).toEqual({
      "account:1": "New name",
      "account:2": "Two",
      "account:4294967295": "Highest id",
      "cloudspace:1": "Space 1, quote ' and \"",
    });
  });

  it("stores a list of 100,000 names in one go", async () => {
    const db = join(dir, "many.duckdb");
    const many: ListedName[] = Array.from({ length: 100_000 }, (_, i) => ({
      kind: "cloudspace",
      id: i + 1,
      name: `space ${i + 1}`,
      accountId: (i % 7) + 1,
    }));
    const names = await withWarehouse(db, async (connection) => {
      await writeEntityNames(connection, many);
      return readEntityNames(connection);
    });
    expect(names.size).toBe(100_000);
    expect(names.get("cloudspace:99999")).toBe("space 99999");
  });
});
