import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_UNITS,
  issueProblems,
  loadNames,
  loadPrices,
  loadStatementConfig,
  loadUnits,
  taxOf,
} from "../src/index.js";
import { REPO } from "./helpers/shellExamples.js";

// The files of examples/ as a user copies them. Each is also what the command-line reference's
// runs bill with (`--prices`, `--units`, `--names` in test/cliReference.test.ts).
const example = (file: string) => join(REPO, "examples", file);

describe("examples/", () => {
  it("units.yaml is the published constants, every one written out", async () => {
    const units = await loadUnits(example("units.yaml"));
    expect(isDeepStrictEqual(units, DEFAULT_UNITS)).toBe(true);
  });

  it("prices.yaml prices every unit its comments name, with account 2's own CU price", async () => {
    const list = await loadPrices(example("prices.yaml"));
    expect(list.currency).toBe("EUR");
    expect(Object.keys(list.prices).sort()).toEqual(["CU", "NU", "PIU", "SU", "TU"]);
    expect(list.accounts.get(2)?.CU?.map((p) => p.text)).toEqual(["0.04"]);
    // customer 7104 pays in yen: every unit priced in JPY, whole yen
    const yen = list.customers?.get("7104");
    expect([yen?.currency, yen?.decimals, Object.keys(yen?.prices ?? {}).sort()]).toEqual([
      "JPY",
      0,
      ["CU", "NU", "PIU", "SU", "TU"],
    ]);
  });

  it("names.csv names accounts, a quoted name with its comma intact", async () => {
    const names = await loadNames(example("names.csv"));
    expect(names.get("account:2")).toBe("Globex, Inc.");
    expect(names.size).toBe(3);
  });

  it("statement.yaml can issue its three customers' invoices: reverse charge, the default 19%, exempt", async () => {
    const config = await loadStatementConfig(example("statement.yaml"));
    expect(config.deprecations).toEqual([]);
    expect([7101, 7102, 7103].map((id) => issueProblems(config, id))).toEqual([[], [], []]);
    expect([7101, 7102, 7103].map((id) => [taxOf(config, id)?.category, taxOf(config, id)?.ratePercent])).toEqual([
      ["AE", "0"],
      ["S", "19"],
      ["E", "0"],
    ]);
  });
});
