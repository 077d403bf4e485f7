import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseUnits, UsageError } from "../../src/index.js";
import { runCli } from "../helpers/runCli.js";

// A units file whose constants could make a unit infinite (or NaN further on) is refused when it
// is read: the largest value a file can hold (a float32) in every field must still give finite
// units, per hour and per month. Every numeric constant of examples/units.yaml is here.
const NOT_FINITE: { units: Record<string, unknown>; key: RegExp }[] = [
  { units: { gbPerCu: 5e-324 }, key: /\bgbPerCu 5e-324 makes CU infinite/ },
  { units: { mbPerGb: 1e-300 }, key: /\bmbPerGb 1e-300 makes MU infinite/ },
  { units: { vcpusPerCu: 1e-300 }, key: /\bvcpusPerCu 1e-300 makes CU infinite/ },
  { units: { gbPerSu: 5e-324 }, key: /\bgbPerSu 5e-324 makes SU infinite/ },
  { units: { iopsPerTu: 1e-280 }, key: /\biopsPerTu 1e-280 makes TU infinite/ },
  { units: { bytesPerNu: 5e-324 }, key: /\bbytesPerNu 5e-324 makes NU infinite/ },
  { units: { nicBytesPerValue: 1e300 }, key: /\bnicBytesPerValue 1e\+300 makes the network series infinite/ },
  // packets per second stand for 3600 × nicBytesPerValue bytes: finite alone, not with this reading
  {
    units: { nicBytesPerValue: 1e252, nicReading: "host-packets-per-second" },
    key: /\bnicBytesPerValue 1e\+252 makes the network series infinite/,
  },
  // each is finite per hour; divided by a tiny month, not
  { units: { hoursPerMonth: 1e-300 }, key: /\bhoursPerMonth 1e-300 makes MU per month infinite/ },
  {
    units: { gbPerCu: 1e-200, hoursPerMonth: 1e-100 },
    key: /\bgbPerCu 1e-200 with hoursPerMonth 1e-100 makes CU per month infinite/,
  },
  // two constants each fine alone, infinite together in the order the engine divides
  { units: { mbPerGb: 1e-150, gbPerCu: 1e-150 }, key: /\bmbPerGb 1e-150 with gbPerCu 1e-150 makes CU infinite/ },
];

describe("units constants whose units could be infinite", () => {
  it.each(NOT_FINITE)("$units is refused when read, naming the key", ({ units, key }) => {
    let thrown: unknown;
    try {
      parseUnits(units, "units.yaml");
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UsageError);
    expect((thrown as UsageError).code).toBe("UNITS_NOT_FINITE");
    expect((thrown as Error).message).toMatch(/^units\.yaml: /);
    expect((thrown as Error).message).toMatch(key);
    expect((thrown as Error).message).not.toContain("\n");
  });

  it.each([
    { gbPerCu: 1e-200 },
    { mbPerGb: 1e200, gbPerCu: 1e200 },
    { bytesPerNu: 1e-200 },
    { nicBytesPerValue: 1e200 },
    { hoursPerMonth: 1e300 },
    { hoursPerMonth: 1 },
  ])("$0 is still read: small or large, its units stay finite", (units) => {
    expect(parseUnits(units)).toMatchObject(units);
  });
});

describe("cloudunits billing --units with a constant making a unit infinite", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cloudunits-units-"));
    expect(
      (
        await runCli([
          "generate",
          "--out",
          join(dir, "data.zip"),
          "--accounts",
          "1",
          "--spaces",
          "1",
          "--machines",
          "2",
          "--hours",
          "2",
        ])
      ).code,
    ).toBe(0);
    await writeFile(join(dir, "units.yaml"), "gbPerCu: 5e-324\n");
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  // before: csv crashed (exit 1, a RangeError and its stack), json printed "CU": null and exit 0
  it.each(["csv", "json", "text"])(
    "--format %s: exit 2, one line naming gbPerCu, nothing on stdout",
    async (format) => {
      const run = await runCli([
        "billing",
        join(dir, "data.zip"),
        "--month",
        "2026-10",
        "--units",
        join(dir, "units.yaml"),
        "--format",
        format,
      ]);
      expect([run.code, run.stdout]).toEqual([2, ""]);
      expect(run.stderr).toMatch(/^cloudunits: \S*units\.yaml: gbPerCu 5e-324 makes CU infinite .*\n$/);
    },
  );
});
