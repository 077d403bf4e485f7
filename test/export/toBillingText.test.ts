import { beforeAll, describe, expect, it } from "vitest";
import type { DuckDBConnection } from "@duckdb/node-api";
import { Exact, monthPeriod, toBillingText } from "../../src/index.js";
import { statementFixture } from "../helpers/statementIsolation.js";
import { memoryWarehouse } from "../helpers/warehouse.js";
import { reportFrom } from "../helpers/billFrom.js";

const fixture = statementFixture();
let connection: DuckDBConnection;
let environment: string;
let account: string;

beforeAll(async () => {
  connection = await memoryWarehouse(fixture.hours);
  const options = { names: fixture.names };
  environment = toBillingText(
    await reportFrom(connection, monthPeriod("2026-10"), options, { prices: fixture.prices }),
  );
  account = toBillingText(
    await reportFrom(connection, { ...monthPeriod("2026-10"), accountId: 7101 }, options, { prices: fixture.prices }),
  );
});

/** The rows of the table whose header starts with `first` and holds `holds`: cells split on 2+ spaces. */
function tableAfter(text: string, holds: string): { header: string[]; rows: string[][] } {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => l.startsWith("level") && l.includes(holds));
  const end = lines.findIndex((l, i) => i > start && l.trim() === "");
  const split = (l: string) => l.trim().split(/ {2,}/);
  return {
    header: split(lines[start]!),
    rows: lines
      .slice(start + 2, end)
      .filter((l) => !l.startsWith("---"))
      .map(split),
  };
}

const cents = (cells: string[]) => cells.reduce((a, c) => a.add(Exact.parse(c)!), Exact.ZERO).toFixed(2);

describe("billing as text", () => {
  it("shows every priced unit (WU and PIU too, without --all-units) and its money; each account's amounts add up to its amount due", () => {
    const quantities = tableAfter(environment, "hours");
    expect(quantities.header).toEqual([
      "level",
      "id",
      "name",
      "hours",
      "CU-hours",
      "SU-hours",
      "TU-hours",
      "NU-TiB",
      "WU-hours",
      "PIU-hours",
    ]);
    const money = tableAfter(environment, "amount due (EUR)");
    expect(money.header).toEqual(["level", "id", "name", "CU", "SU", "TU", "NU", "WU", "PIU", "amount due (EUR)"]);
    for (const row of money.rows) expect(cents(row.slice(-7, -1)), row.join(" ")).toBe(row.at(-1));
    const total = money.rows.at(-1)!;
    expect(total.slice(0, 2)).toEqual(["total", "5 accounts"]);
    expect(cents(money.rows.slice(0, -1).map((r) => r.at(-1)!))).toBe(total.at(-1));
    expect(environment).toContain(`total amount due: ${total.at(-1)} EUR`);
  });

  it("the environment's own CU is on a line of its own, not in a column that adds up: the total row is the accounts' sum", () => {
    const { rows } = tableAfter(environment, "hours");
    expect(rows.map((r) => r[0])).not.toContain("environment");
    const total = rows.at(-1)!;
    const sum = rows.slice(0, -1).reduce((a, r) => a + Number(r[4]), 0);
    expect(total.slice(0, 3)).toEqual(["total", "5 accounts", sum.toFixed(4)]);
    const own =
      /^the environment's own CU \(its own totals per hour, not a total of the rows above\): (\d+\.\d{4}) CU-hours; the accounts' CU add up to (\d+\.\d{4})$/m.exec(
        environment,
      )!;
    expect(Number(own[2])).toBe(sum);
    expect(Number(own[1])).toBeLessThan(sum);
    expect(environment).toMatch(
      /^CU rule: aggregate \(each level's CU per hour is max\(Σmem\/1024\/4, Σvcpus\/2\) of its own totals\)$/m,
    );
  });

  it("for one account: amount due on its line only; its cloud spaces carry allocated cost and allocated CU that add up to it, and say how", () => {
    const quantities = tableAfter(account, "hours");
    expect(quantities.header.slice(4, 6)).toEqual(["CU own", "CU allocated"]);
    const [accountRow, ...cloudspaces] = quantities.rows;
    // Own CU of the cloud spaces adds up to more than the account's (aggregate); allocated CU adds up to it.
    expect(cloudspaces.reduce((a, r) => a + Number(r[4]), 0)).toBeGreaterThan(Number(accountRow![4]));
    expect(cloudspaces.reduce((a, r) => a + Number(r[5]), 0)).toBeCloseTo(Number(accountRow![5]), 3);
    const lines = account.split("\n");
    const money = lines.slice(lines.findIndex((l) => l.includes("allocated cost (EUR)")));
    const header = money[0]!;
    const due = header.indexOf("amount due (EUR)") + "amount due (EUR)".length;
    const allocated = header.length;
    const row = (id: string) => money.find((l) => l.split(/\s+/)[1] === id)!;
    expect(row("7101").length).toBe(due);
    const shares = ["71011", "71012"].map((id) => row(id));
    for (const l of shares) expect(l.length, l).toBe(allocated);
    expect(cents(shares.map((l) => l.trim().split(/\s+/).at(-1)!))).toBe(row("7101").trim().split(/\s+/).at(-1));
    expect(account).toContain("Allocated cost is not an amount due:");
    expect(account).toContain("adds up to the account's lines exactly");
  });
});
