import { execFileSync } from "node:child_process";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { describeWith } from "../../helpers/prerequisites.js";
import { accountHour, disk, HOUR, memoryWarehouse, OCT_1, vm } from "../../helpers/warehouse.js";
import {
  billingReport, makeNames, numberStatements, parsePrices, parseStatementConfig, pricePeriodText, shownQuantity, writeStatements,
  type BillingReport, type StatementConfig,
} from "../../../src/internal.js";
import { Exact } from "../../../src/billing/exact.js";

// Account 7 (hours 0 and 2; hour 1 missing): cloud space 11 with vm 1 (8 GiB, 2 vCPUs, a 1024 GB disk) and vm 2
// (4 GiB, 4 vCPUs), cloud space 12 with vm 3 (2 GiB, 1 vCPU). Per hour: Σ 14 GiB / 4 = 3.5, Σ 7 vCPUs / 2 = 3.5 → 3.5 CU;
// 2 hours: 7 CU-hours × 0.125 = 0.875 → 0.88 (half-even); SU 2 SU-hours / 720 × 36 = 0.1 → 0.10. Net 0.98, VAT 20% 0.196 → 0.20, due 1.18.
// Account 8 (hours 0–2): vm 9 (2 GiB, 1 vCPU) → 1.5 CU-hours × 0.125 = 0.1875 → 0.19.
const hours = [
  ...[0, 2].map((h) => accountHour(7, OCT_1 + h * HOUR, {
    11: [vm(1, { mem: 8192, vcpus: 2, disks: [disk(1, 1024)] }), vm(2, { mem: 4096, vcpus: 4 })],
    12: [vm(3, { mem: 2048, vcpus: 1 })],
  })),
  ...[0, 1, 2].map((h) => accountHour(8, OCT_1 + h * HOUR, { 21: [vm(9, { mem: 2048, vcpus: 1 })] })),
];

const OTHER_NAME = "Zeta Ötherkunde GmbH";
const config: StatementConfig = parseStatementConfig({
  issuer: { legalName: "Nordlicht Cloud Services GmbH", address: ["Hafenstraße 12", "20457 Hamburg"], vatId: "DE123456789", bank: ["IBAN DE89 3704 0044 0532 0130 00"] },
  numbering: { pattern: "INV-{yyyy}-{seq:05}" },
  paymentTermsDays: 30,
  issueDate: "2026-11-02",
  taxes: [{ label: "VAT 20%", ratePercent: 20 }],
  customers: {
    7: { legalName: "Lumière Énergie Société Coopérative de Łódź et Dvořák Überseehandel, a very long legal name indeed", address: ["12 rue de la Gare", "69001 Lyon"], vatId: "FR12345678901" },
    8: { legalName: OTHER_NAME, address: ["Ring 1", "Wien"], vatId: "ATU99999999" },
  },
}, "statement.yaml");

let report: BillingReport;
let dir: string;

/** The text of a PDF's pages (pdftotext, poppler), one string per page. */
function pagesOf(file: string): string[] {
  return execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }).split("\f").filter((p) => p.trim() !== "");
}

/** One page of account 7's numbered statement, its whitespace folded to single spaces. */
const page7 = (index: number) => pagesOf(join(dir, "numbered", "account-7-lumiere.pdf"))[index]!.replace(/\s+/g, " ");

/** The PDF's document information (title, author, subject...). */
function infoOf(file: string): string {
  return execFileSync("pdfinfo", [file], { encoding: "utf8" });
}

beforeAll(async () => {
  const connection = await memoryWarehouse(hours);
  const prices = parsePrices({ currency: "EUR", prices: { CU: "0.125", SU: { perMonth: 36 } } }, "prices.yaml");
  const names = makeNames([{ kind: "account", id: 7, name: "Lumière" }, { kind: "account", id: 8, name: OTHER_NAME }, { kind: "cloudspace", id: 11, name: "Production Île-de-France" }]);
  report = await billingReport(connection, { start: OCT_1, end: OCT_1 + 3 * HOUR }, { names }, { prices });
  dir = await mkdtemp(join(tmpdir(), "cu-pdf-"));
  const db = join(dir, "numbers.duckdb");
  const numbers = await numberStatements(db, report, config);
  await writeStatements(report, config, { dir: join(dir, "numbered") }, numbers);
}, 60_000);

describeWith("poppler", "PDF statement of an account", () => {
  it("writes one PDF per account, named like the pack's workbooks", async () => {
    expect((await readdir(join(dir, "numbered"))).sort()).toEqual(["account-7-lumiere.pdf", "account-8-zeta-otherkunde-gmbh.pdf"].sort());
  });

  it("shows the number, the issue and due dates, the customer with its accents, the lines, the taxes and the amount due", () => {
    const text = page7(0);
    expect(text).toContain("Statement number INV-2026-00001");
    expect(text).toContain("Issue date 2026-11-02");
    expect(text).toContain("Due date 2026-12-02");
    expect(text).toContain("Lumière Énergie Société Coopérative de Łódź et Dvořák");
    expect(text).toContain("Überseehandel, a very long legal name indeed");
    expect(text).toContain("VAT FR12345678901");
    expect(text).toMatch(/CU: Compute units 7 CU-hours 0\.125 per CU-hour 0\.88/);
    // 2 SU-hours = 0.002777… SU-months: shown with the decimals that make quantity × price give the amount
    expect(text).toMatch(/SU: Storage units \(allocated disk\) 0\.0028 SU-months 36 per SU-month 0\.10/);
    expect(text).toMatch(/Total excluding tax \(EUR\) 0\.98/);
    expect(text).toMatch(/VAT 20% \(20% of 0\.98\) 0\.20/);
    expect(text).toMatch(/Amount due \(EUR\), including tax 1\.18/);
    expect(text).toContain("Please pay 1.18 EUR by 2026-12-02, quoting statement INV-2026-00001");
    expect(text).toContain("IBAN DE89 3704 0044 0532 0130 00");
  });

  it("flags the missing hours on the first page and defines the units in use", () => {
    const text = page7(0);
    expect(text).toContain("Missing data: 1 hour of the period had no consumption data");
    expect(text).toContain("2026-10-01T01:00:00Z");
    expect(text).toContain("a unit-month is 720 unit-hours");
    expect(text).toContain("max(Σmem/1024/4, Σvcpus/2)");
    expect(text).toContain("one SU per 1024 GiB (1 TiB)");
  });

  it("carries the number, the period and 'page i of n' on every page", () => {
    const pages = pagesOf(join(dir, "numbered", "account-7-lumiere.pdf"));
    expect(pages.length).toBe(2);
    pages.forEach((page, i) => {
      const text = page.replace(/\s+/g, " ");
      expect(text).toContain("Statement INV-2026-00001");
      expect(text).toContain("period 2026-10-01T00:00:00Z to 2026-10-01T03:00:00Z (UTC, end excluded)");
      expect(text).toContain(`page ${i + 1} of 2`);
    });
  });

  it("shows the allocation as allocated cost adding up to the total excluding tax, never as an amount due", () => {
    const text = page7(1);
    expect(text).toContain("Allocation by cloud space and machine (allocated cost, EUR)");
    expect(text).toContain("Cloud space Production Île-de-France 11");
    expect(text).toContain("Total allocated (= total excluding tax) 7.00 0.98"); // the account's 7 CU-hours, in the unit CU is priced in
    // own CU beside allocated CU (docs/billing.md, showback): cloud space 11 owns max(12 GiB / 4, 6 vCPUs / 2) = 3 CU an hour, 6.00 in
    // 2 hours, all of it allocated (3 + 0.5 = the account's 3.5); its vm 1 owns max(2, 1) = 2, 4.00, but is allocated
    // 3 × 2 / (2 + 2) = 1.5 an hour, 3.00: the machines' own CU add up to more than their cloud space's.
    expect(text).toContain("id own CU (CU- allocated CU (CU- allocated cost hours) hours) (EUR)"); // headers wrap over two lines
    expect(text).toContain("Production Île-de-France 11 6.00 6.00");
    expect(text).toMatch(/\(unnamed machine\) 1 4\.00 3\.00 \d+\.\d\d/);
    expect(text).toMatch(/\(unnamed machine\) 2 4\.00 3\.00 \d+\.\d\d/);
    expect(text).not.toMatch(/amount due/i);
    const cloudspaceCosts = [...text.matchAll(/Cloud space .*? (1[12]) [\d.,]+ [\d.,]+ (\d+\.\d\d)/g)].map((m) => Number(m[2]));
    expect(cloudspaceCosts.length).toBe(2);
    expect(cloudspaceCosts.reduce((a, b) => a + b, 0)).toBeCloseTo(0.98, 10);
  });

  it("holds nothing of another account: no id, name, cloud space, machine or figure of account 8", () => {
    const file = join(dir, "numbered", "account-7-lumiere.pdf");
    const text = pagesOf(file).join("\n") + infoOf(file);
    expect(text).not.toContain(OTHER_NAME);
    expect(text).not.toContain("Zeta");
    expect(text).not.toMatch(/account 8\b/);
    expect(text).not.toMatch(/\b21\b/); // account 8's cloud space
    expect(text).not.toContain("0.19"); // account 8's amount
    expect(text).not.toContain("ATU99999999");
    const other = pagesOf(join(dir, "numbered", "account-8-zeta-otherkunde-gmbh.pdf")).join("\n");
    expect(other).not.toContain("Lumière");
    expect(other).not.toContain("Production");
    expect(other).not.toContain("FR12345678901");
    expect(other).not.toContain("Missing data"); // account 7's missing hour is not account 8's
  });

  it("marks a statement without a registered number as a draft on every page", async () => {
    const [file] = await writeStatements(report, config, { file: join(dir, "draft.pdf") }, new Map()).catch(() => [undefined]);
    expect(file).toBeUndefined(); // one file cannot hold two accounts
    const files = await writeStatements(report, config, { dir: join(dir, "drafts") });
    const pages = pagesOf(files[0]!);
    expect(pages[0]).toContain("DRAFT STATEMENT");
    expect(pages[0]!.replace(/\s+/g, " ")).toContain("Statement number DRAFT, not numbered");
    for (const page of pages) expect(page).toContain("Draft statement (not numbered)");
  });
});

describe("pricePeriodText", () => {
  it.each([
    [OCT_1, OCT_1 + 14 * 86_400, "2026-10-01 to 2026-10-14"],
    [OCT_1, OCT_1 + 2 * HOUR, "2026-10-01 00:00 to 02:00"],
    [OCT_1 + 22 * HOUR, OCT_1 + 26 * HOUR, "2026-10-01 22:00 to 2026-10-02 02:00"],
  ])("[%i, %i) reads %s", (start, end, text) => {
    expect(pricePeriodText(start, end)).toBe(text);
  });
});

describe("shownQuantity", () => {
  it.each([
    // quantity, unit price, amount, shown: the fewest decimals (at least 2) whose product rounds to the amount
    [7, "0.125", "0.88", "7"],
    [2 / 720, "36", "0.10", "0.0028"],
    [59299.5, "0.0125", "741.24", "59299.5"],
    [9.946582031, "20", "198.93", "9.9466"],
    [0.123456789, "1000000", "123456.79", "0.12345679"],
  ])("%s at %s gives %s: shown as %s", (quantity, unitPrice, amount, shown) => {
    expect(shownQuantity({ quantity, unitPrice, amount: Exact.parse(amount)! }, 2)).toBe(shown);
  });
});

describeWith("poppler", "PDF statement with a price that changes within the period", () => {
  it("shows a line per unit and price period, with the period's dates, and the amount due of the lines", async () => {
    const connection = await memoryWarehouse(hours);
    // CU 0.125 until 02:00, 0.25 from then: account 7's 3.5 CU-hours at hour 0 → 0.4375 → 0.44, at hour 2 → 0.875 → 0.88
    const prices = parsePrices({ currency: "EUR", prices: { CU: ["0.125", { from: "2026-10-01T02:00Z", price: "0.25" }] } }, "prices.yaml");
    const changing = await billingReport(connection, { start: OCT_1, end: OCT_1 + 3 * HOUR, accountId: 7 }, {}, { prices });
    const [file] = await writeStatements(changing, { ...config, issuer: { ...config.issuer, tax: undefined } }, { file: join(dir, "changing.pdf") });
    const text = pagesOf(file!)[0]!.replace(/\s+/g, " ");
    expect(text).toContain("Price period (UTC)");
    expect(text).toMatch(/CU: Compute units 2026-10-01 00:00 to 02:00 3\.5 CU-hours 0\.125 per CU-hour 0\.44/);
    expect(text).toMatch(/CU: Compute units 2026-10-01 02:00 to 03:00 3\.5 CU-hours 0\.25 per CU-hour 0\.88/);
    expect(text).toMatch(/Amount due \(EUR\) 1\.32/);
  });
});
