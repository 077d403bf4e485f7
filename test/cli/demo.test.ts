import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { open } from "../../src/index.js";
import { runCli, type CliRun } from "../helpers/runCli.js";

let run: CliRun;
let data: string | undefined;

afterAll(async () => {
  if (data) await rm(dirname(data), { recursive: true, force: true });
});

describe("npm start (cloudunits demo)", () => {
  it("prints a billing summary of the sample data whose figures are the library's", async () => {
    run = await runCli(["demo", "--keep"]);
    expect(run.code, run.stderr).toBe(0);
    data = /in (\S+consumption)\n/.exec(run.stdout)?.[1];
    expect(data).toBeDefined();
    expect(run.stdout).toContain("CU rule: aggregate");

    const rows = run.stdout.split("\n").filter((l) => l.startsWith("account "));
    expect(rows).toHaveLength(3);
    const store = await open([data!]);
    try {
      const start = Date.UTC(2026, 9, 1) / 1000;
      for (const row of rows) {
        const [, id, hours, cu, su, tu, nu] = row.trim().split(/\s+/).map(Number);
        const { account } = await store.calculate({ start, end: start + 48 * 3600, accountId: id! });
        expect(hours).toBe(47); // 48 hours, one dropped on purpose
        expect(cu).toBeCloseTo(account.consumption.CU!, 4);
        expect(su).toBeCloseTo(account.consumption.SU!, 4);
        expect(tu).toBeCloseTo(account.consumption.TU!, 4);
        expect(nu).toBeCloseTo(account.consumption.NU!, 4);
      }
    } finally {
      store.close();
    }
  });

  it("names the hour it left out as missing, for every account: never silent", () => {
    const warnings = run.stdout.split("\n").filter((l) => l.startsWith("warning:"));
    expect(warnings).toHaveLength(3);
    for (const w of warnings) expect(w).toMatch(/1 hour missing .*2026-10-02T06:00:00Z/);
  });
});
