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
    data = /in (\S+consumption),/.exec(run.stdout)?.[1];
    expect(data).toBeDefined();
    expect(run.stdout).toContain("CU rule: aggregate");

    const rows = run.stdout.split("\n").filter((l) => l.startsWith("account "));
    expect(rows).toHaveLength(3);
    const store = await open([data!]);
    try {
      const start = Date.UTC(2026, 9, 1) / 1000;
      const names = ["Nordlicht Media", "Lumière Énergie", "Zeta Logistics"];
      for (const [i, row] of rows.entries()) {
        // `account <id>  <name>  <hours> <CU> <SU> <TU> <NU>`: the name column filled from the names file
        const [, idText, name, figures] = /^account\s+(\d+)\s+(.+?)\s{2,}(\d.*)$/.exec(row.trim())!;
        expect(name).toBe(names[i]);
        const [id, hours, cu, su, tu, nu] = [idText, ...figures!.split(/\s+/)].map(Number);
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

  it("says on its first lines where the names come from, and why an hour is missing: the generator leaves it out on purpose", () => {
    const [generated, why] = run.stdout.split("\n");
    expect(generated).toMatch(
      /^generated 141 hourly files \(.* MB\) in \S+consumption, and the accounts' names in \S+names\.csv;$/,
    );
    expect(why).toBe(
      "the hour 2026-10-02T06:00:00Z is left out on purpose, to show how a missing hour is reported (the warnings below)",
    );
    expect(run.stdout).toMatch(/--names \S+names\.csv --format json/);
  });

  it("names the hour it left out as missing, for every account: never silent", () => {
    const warnings = run.stdout.split("\n").filter((l) => l.startsWith("warning:"));
    expect(warnings).toHaveLength(3);
    for (const w of warnings) expect(w).toMatch(/1 hour missing .*2026-10-02T06:00:00Z/);
  });
});
