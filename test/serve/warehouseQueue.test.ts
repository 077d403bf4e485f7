import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest } from "../../src/store/ingest.js";
import { writeDataset } from "../../src/internal.js";
import { WarehouseQueue } from "../../src/serve/warehouseQueue.js";

describe("the dashboard's computations on the warehouse", () => {
  let dir: string;
  let db: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "cloudunits-queue-"));
    const zip = join(dir, "data.zip");
    await writeDataset({ out: zip, accounts: 1, spaces: 1, machines: 2, hours: 2, start: 1790812800, seed: 3 });
    db = join(dir, "warehouse.duckdb");
    await ingest([zip], { db });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("read the file with DuckDB's memory capped as forecast and alerts do, so the dashboard's peak does not grow with the machines", async () => {
    const queue = new WarehouseQueue(db, 1);
    const cap = await queue.run("client", async (w) =>
      String((await w.connection.runAndReadAll("SELECT current_setting('memory_limit')")).getRowsJS()[0]![0]),
    );
    // 64 MiB: where 20,000 machines' month cached 280 MB more than 2,000's without a cap
    expect(cap).toBe("64.0 MiB");
  });
});
