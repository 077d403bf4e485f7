import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { monthPeriod, warehouseHourly, writeBillingXlsx, writeInvoicePack } from "../../src/internal.js";
import { leaksOf, statementFixture, zipParts, type StatementPart } from "../helpers/statementIsolation.js";
import { memoryWarehouse } from "../helpers/warehouse.js";
import { reportFrom } from "../helpers/billFrom.js";

const fixture = statementFixture();
let files: string[];

beforeAll(async () => {
  const connection = await memoryWarehouse(fixture.hours);
  const report = await reportFrom(
    connection,
    monthPeriod("2026-10"),
    { names: fixture.names },
    { prices: fixture.prices },
  );
  files = await writeInvoicePack(
    report,
    warehouseHourly(connection, report),
    join(await mkdtemp(join(tmpdir(), "cu-isolation-")), "pack"),
  );
});

const text = (parts: StatementPart[]) => parts.map((p) => p.text).join("\n");

describe("an account's statement holds that account alone", () => {
  it("the summary (the issuer's) names every account: the search finds what is there", async () => {
    const summary = await zipParts(files[0]!);
    expect(basename(files[0]!)).toBe("summary.xlsx");
    for (const account of fixture.accounts) {
      expect(leaksOf(summary, [account]).length, String(account.id)).toBeGreaterThan(0);
    }
  });

  it.each(fixture.accounts.map((a) => [a.id, a] as const))(
    "account %i's workbook: no other account's id or name in any part, its own are there",
    async (id, own) => {
      const file = files.find((f) => basename(f).startsWith(`account-${id}-`))!;
      const parts = await zipParts(file);
      expect(
        leaksOf(
          parts,
          fixture.accounts.filter((a) => a.id !== id),
        ),
      ).toEqual([]);
      expect(leaksOf(parts, [own]).length).toBeGreaterThan(0);
    },
  );

  it("it says its own missing hour, and nothing of the whole load, of others' prices, or of its own price override", async () => {
    const words = text(await zipParts(files.find((f) => basename(f).startsWith("account-7104-"))!));
    expect(words).toContain("1 hour of the period had no consumption data and is not charged: 2 Oct 2026 06:00 UTC.");
    expect(words).not.toMatch(
      /Data loaded|files, not fingerprinted|account overrides?\b|Byte-identical duplicates|\b7102\b|own prices/,
    );
  });
});

describe("a workbook billed for one account (--account-id) is that account's statement too", () => {
  it.each(fixture.accounts.map((a) => [a.id] as const))(
    "account %i alone: no other account's id or name, nothing of the whole load",
    async (id) => {
      const connection = await memoryWarehouse(fixture.hours);
      const report = await reportFrom(
        connection,
        { ...monthPeriod("2026-10"), accountId: id },
        { names: fixture.names },
        { prices: fixture.prices },
      );
      const file = join(await mkdtemp(join(tmpdir(), "cu-isolation-one-")), "one.xlsx");
      await writeBillingXlsx(report, warehouseHourly(connection, report), file);
      const parts = await zipParts(file);
      expect(
        leaksOf(
          parts,
          fixture.accounts.filter((a) => a.id !== id),
        ),
      ).toEqual([]);
      expect(text(parts)).not.toMatch(
        /Data loaded|files, not fingerprinted|account overrides?\b|Byte-identical duplicates/,
      );
    },
  );
});
