import { afterEach, describe, expect, it } from "vitest";
import { sizeMemoryForIngest } from "../../src/cli/ingestMemory.js";

const VARIABLE = "DUCKDB_JE_MALLOC_CONF";
const before = process.env[VARIABLE];

afterEach(() => {
  if (before === undefined) delete process.env[VARIABLE];
  else process.env[VARIABLE] = before;
});

describe("ingest's memory settings", () => {
  it("have DuckDB's allocator return freed pages at once when the user set nothing", () => {
    delete process.env[VARIABLE];
    sizeMemoryForIngest();
    expect(process.env[VARIABLE]).toBe("dirty_decay_ms:0,muzzy_decay_ms:0");
  });

  it("keep the allocator settings a user gave DuckDB", () => {
    process.env[VARIABLE] = "narenas:2";
    sizeMemoryForIngest();
    expect(process.env[VARIABLE]).toBe("narenas:2");
  });
});
