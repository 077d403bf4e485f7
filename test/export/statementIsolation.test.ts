import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { billingReport, monthPeriod, warehouseHourly, writeBillingXlsx, writeInvoicePack } from "../../src/index.js";
import { leaksOf, statementFixture, zipParts, type StatementPart } from "../helpers/statementIsolation.js";
import { memoryWarehouse } from "../helpers/warehouse.js";

const fixture = statementFixture();
let files: string[];

beforeAll(async () => {
  const connection = await memoryWarehouse(fixture.hours);
  const report = await billingReport(connection, monthPeriod("2026-10"), { names: fixture.names }, { prices: fixture.prices });
  files = await writeInvoicePack(report, warehouseHourly(connection, report), join(await mkdtemp(join(tmpdir(), "cu-isolation-")), "pack"));
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

  it.each(fixture.accounts.map((a) => [a.id, a] as const))("account %i's workbook: no other account's id or name in any part, its own are there", async (id, own) => {
    const file = files.find((f) => basename(f).startsWith(`account-${id}-`))!;
    const parts = await zipParts(file);
    expect(leaksOf(parts, fixture.accounts.filter((a) => a.id !== id))).toEqual([]);
    expect(leaksOf(parts, [own]).length).toBeGreaterThan(0);
  });

  it("its About sheet counts nothing of the whole load: no files loaded, no others' overrides; its own missing hour is there", async () => {
    const about = text(await zipParts(files.find((f) => basename(f).startsWith("account-7104-"))!));
    expect(about).toContain("Missing hours, account 7104");
    expect(about).not.toMatch(/Data loaded|files, not fingerprinted|account overrides?\b|Byte-identical duplicates|\b7102\b/);
    // Account 7103's own override is its own business: its statement says it has its own prices, others' say nothing.
    expect(text(await zipParts(files.find((f) => basename(f).startsWith("account-7103-"))!))).toContain("with this account's own prices");
    expect(about).not.toContain("own prices");
  });
});

describe("a workbook billed for one account (--account-id) is that account's statement too", () => {
  it.each(fixture.accounts.map((a) => [a.id] as const))("account %i alone: no other account's id or name, nothing of the whole load", async (id) => {
    const connection = await memoryWarehouse(fixture.hours);
    const report = await billingReport(connection, { ...monthPeriod("2026-10"), accountId: id }, { names: fixture.names }, { prices: fixture.prices });
    const file = join(await mkdtemp(join(tmpdir(), "cu-isolation-one-")), "one.xlsx");
    await writeBillingXlsx(report, warehouseHourly(connection, report), file);
    const parts = await zipParts(file);
    expect(leaksOf(parts, fixture.accounts.filter((a) => a.id !== id))).toEqual([]);
    expect(text(parts)).not.toMatch(/Data loaded|files, not fingerprinted|account overrides?\b|Byte-identical duplicates/);
  });
});
