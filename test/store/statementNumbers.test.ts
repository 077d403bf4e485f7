import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { registerStatementNumbers, type StatementNumberRequest } from "../../src/internal.js";

const OCT = { start: 1790812800, end: 1793491200 };
const NOV = { start: 1793491200, end: 1796083200 };
const ask = (accountId: number, period: { start: number; end: number }, extra: Partial<StatementNumberRequest> = {}): StatementNumberRequest => ({
  accountId, ...period, issueDate: "2026-11-02", pattern: "INV-{yyyy}-{seq:05}", currency: "EUR", amountDue: "10.00", ...extra,
});

/** One run: opens the warehouse file to write, numbers the requests, closes it (as the CLI does). */
async function run(file: string, requests: StatementNumberRequest[]) {
  const { instance, connection } = await openDatabaseFile(file);
  try {
    return await registerStatementNumbers(connection, requests);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("statement numbers in the warehouse", () => {
  it("never gives a number twice across runs; the same account and period keeps its number and first issue date", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "cu-numbers-")), "w.duckdb");
    const first = await run(file, [ask(7101, OCT), ask(7102, OCT)]);
    expect(first.map((n) => [n.number, n.reissued])).toEqual([["INV-2026-00001", false], ["INV-2026-00002", false]]);
    // again, a day later with other figures: same numbers, first issue date and amount kept
    const again = await run(file, [ask(7102, OCT, { issueDate: "2026-11-03", amountDue: "12.00" }), ask(7101, OCT)]);
    expect(again.map((n) => [n.number, n.issueDate, n.firstAmountDue, n.reissued])).toEqual([
      ["INV-2026-00002", "2026-11-02", "10.00", true], ["INV-2026-00001", "2026-11-02", "10.00", true],
    ]);
    // a new period, and a new pattern: the sequence goes on
    const next = await run(file, [ask(7101, NOV, { issueDate: "2026-12-01" }), ask(7103, OCT, { pattern: "CU-{seq}" })]);
    expect(next.map((n) => n.number)).toEqual(["INV-2026-00003", "CU-4"]);
  });

  it("leaves nothing when a run fails midway (one transaction)", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "cu-numbers-")), "w.duckdb");
    await run(file, [ask(1, OCT, { pattern: "X{seq}" })]); // X1
    // the second request prints as the number already held (a pattern the config would refuse): refused, and the first is rolled back
    await expect(run(file, [ask(2, OCT, { pattern: "Y{seq}" }), ask(3, OCT, { pattern: "X1" })])).rejects.toThrow();
    const after = await run(file, [ask(2, OCT, { pattern: "Y{seq}" })]);
    expect(after[0]!.number).toBe("Y2");
  });
});
