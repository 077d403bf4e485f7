import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { NAME_LIMIT, renderInvoicePdf, type DraftDocument, type InvoiceDocument } from "../../../src/internal.js";
import { sampleDocuments } from "../../helpers/invoiceDocuments.js";
import { describeWith } from "../../helpers/prerequisites.js";
import { readBack } from "../../helpers/jsonOf.js";

const dir = mkdtempSync(join(tmpdir(), "cu-invoice-pdf-"));
let docs: Record<string, InvoiceDocument>;

/** Renders a document to a file; returns the file and the warnings it gave. */
async function render(
  name: string,
  doc: InvoiceDocument | DraftDocument,
): Promise<{ file: string; warnings: string[]; bytes: Buffer }> {
  const warnings: string[] = [];
  const bytes = await renderInvoicePdf(doc, { onWarning: (m) => warnings.push(m) });
  const file = join(dir, `${name}.pdf`);
  writeFileSync(file, bytes);
  return { file, warnings, bytes };
}

/** The text of each page in the order it is drawn (pdftotext -raw: a table cell's lines together), whitespace folded, bidirectional marks dropped. */
function pages(file: string): string[] {
  return execFileSync("pdftotext", ["-raw", file, "-"], { encoding: "utf8" })
    .split("\f")
    .filter((p) => p.trim() !== "")
    .map((p) =>
      p
        .replace(/[\u202A-\u202E]/g, "")
        .replace(/\s+/g, " ")
        .normalize("NFC"),
    );
}

const text = (file: string) => pages(file).join(" ");
/** The text as laid out on the page (pdftotext -layout): right-to-left words in their reading order. */
const layoutText = (file: string) =>
  execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" })
    .replace(/[\u202A-\u202E]/g, "")
    .replace(/\s+/g, " ");

beforeAll(async () => {
  docs = await sampleDocuments();
});

describeWith("poppler", "an invoice or credit note as a PDF", () => {
  it("the invoice in a customer's words: title, number, dates, period, both parties, lines, net, VAT and the amount due, what to pay", async () => {
    const { file } = await render("standard", docs.standard!);
    const t = text(file);
    for (const words of [
      "Nordlicht Cloud Services GmbH",
      "Invoice",
      "Invoice number INV-2026-00001",
      "Issue date 2 Nov 2026",
      "Due date 2 Dec 2026",
      "Payment reference RF76INV202600001",
      "Period 1 Oct 2026 – 31 Oct 2026",
      "Account 7102",
      "BILL TO Hafenkontor Logistik GmbH",
      "Am Sandtorkai 5",
      "Germany",
      "VAT DE987654321",
      "Compute units (CU) 1,234.5 CU-hours 0.0125 per CU-hour 15.43",
      "Storage units (SU, allocated disk) 2.5 SU-months 36 per SU-month 90.00",
      "Net amount, excluding VAT (EUR) 123.25",
      "VAT 19% on 123.25 23.42",
      "Amount due (EUR) 146.67",
      "Please pay 146.67 EUR by 2 Dec 2026, quoting the payment reference RF76INV202600001 (invoice INV-2026-00001).",
      "IBAN DE89 3704 0044 0532 0130 00",
      "Invoice INV-2026-00001 · account 7102 · 1 Oct 2026 – 31 Oct 2026 page 1 of 1",
    ])
      expect(t).toContain(words);
    // no formula, no internal constant or check row, no machine time
    expect(t).not.toMatch(/max\(|Σ|\/ ?1024|Difference|check|\d{4}-\d{2}-\d{2}T\d{2}|720|DRAFT/);
    expect(t).toContain(
      "Transaction units (TU, 400 IOPS of configured limit) 3,333.3 TU-hours 0.004 per TU-hour 13.33",
    );
  });

  it.each([
    [
      "reverseCharge",
      [
        "Reverse charge: VAT to be accounted for by the customer (Article 196 of Council Directive 2006/112/EC).",
        "VAT reverse charge (0%) on",
        "Your reference PO-2026-118",
        "VAT FR12345678901",
      ],
    ],
    [
      "exempt",
      [
        "Exempt from VAT: Exempt under Article 132(1)(b) of Directive 2006/112/EC (hospital care).",
        "VAT exempt (0%) on",
        "Netherlands",
      ],
    ],
    ["outsideScope", ["Not subject to VAT: Services supplied outside the EU.", "Not subject to VAT on 1.25", "Japan"]],
  ])("%s: its legal mention, its tax line, the amount due equal to the net", async (name, words) => {
    const doc = docs[name]!;
    const t = text((await render(name, doc)).file);
    for (const w of words) expect(t).toContain(w);
    expect(doc.gross.equals(doc.net)).toBe(true);
    expect(t).toContain(`Amount due (EUR) ${String(doc.gross).replace(/\B(?=(\d{3})+(?!\d))/, ",")}`);
  });

  it("a credit note: its title, the invoice it cancels, the reason, negative figures and what is credited", async () => {
    const t = text((await render("creditNote", docs.creditNote!)).file);
    for (const w of [
      "Credit note",
      "Credit note number CN-2026-00001",
      "Issue date 20 Nov 2026",
      "Cancels invoice INV-2026-00001 of 2 Nov 2026",
      "This credit note cancels invoice INV-2026-00001 of 2 Nov 2026 in full. Reason: late hours of 31 Oct 2026 arrived",
      "-1,234.5 CU-hours",
      "-15.43",
      "VAT 19% on -123.25 -23.42",
      "Credit note total (EUR) -146.67",
      "146.67 EUR is credited to you against invoice INV-2026-00001.",
    ])
      expect(t).toContain(w);
    expect(t).not.toContain("Please pay");
    // nothing is due on a credit note: its total is not called an amount due
    expect(t).not.toContain("Amount due");
  });

  it("JPY in whole yen; a month of three prices with each line's price period in words", async () => {
    const yen = text((await render("yen", docs.yen!)).file);
    expect(yen).toContain(`Amount due (JPY) ${Number(docs.yen!.gross).toLocaleString("en-US")}`);
    expect(yen).toMatch(/Compute units \(CU\) 1,234\.57 CU-hours 1\.9 per CU-hour 2,346 /);
    const three = text((await render("threePrices", docs.threePrices!)).file);
    expect(three).toContain("Price period");
    expect(three).toMatch(/Compute units \(CU\) 1 Oct 2026 – 10 Oct 2026 3 CU-hours 0\.1 per CU-hour 0\.30/);
    expect(three).toMatch(
      /Compute units \(CU\) 11 Oct 2026 00:00 – 21 Oct 2026 12:00 UTC 3 CU-hours 0\.2 per CU-hour 0\.60/,
    );
    expect(three).toMatch(
      /Compute units \(CU\) 21 Oct 2026 12:00 – 31 Oct 2026 24:00 UTC 4\.5 CU-hours 0\.35 per CU-hour 1\.58/,
    );
  });

  it("USD with its VAT also in EUR: under the amount due, the EUR VAT and the rate of the issue date, not added to it", async () => {
    // net 114.17 USD, VAT 19% = 21.69 USD, amount due 135.86 USD; in EUR: 21.69 × 0.9215 = 19.987335 → 19.99
    const dollar = text((await render("dollar", docs.dollar!)).file);
    expect(dollar).toContain("Amount due (USD) 135.86 Total VAT in EUR, at 1 USD = 0.9215 EUR on 2 Nov 2026 19.99 EUR");
    expect(dollar).toContain("The VAT in EUR is the total VAT × the rate of the issue date");
  });

  it("names in any script print: Chinese, Japanese, Korean, Greek, Cyrillic, Arabic, Hebrew, each with a font that has it", async () => {
    const name = "株式会社さくらクラウド 北京云计算 한국전자 Ωmega Αθήνα Москва Łódź شركة الخليج للتقنية חברת הייטק";
    const { file, warnings } = await render("scripts", {
      ...docs.standard!,
      customer: { ...docs.standard!.customer, legalName: name },
    });
    expect(warnings).toEqual([]);
    expect(layoutText(file)).toContain(`BILL TO ${name}`);
    const fonts = execFileSync("pdffonts", [file], { encoding: "utf8" });
    expect(fonts).toMatch(/\+DejaVuSans\b/);
    expect(fonts).toMatch(/\+UnifontExMono\b/);
  });

  it("a character no font has is a warning, and prints visibly as U+FFFD, never as an empty box", async () => {
    const { file, warnings } = await render("hieroglyph", {
      ...docs.standard!,
      customer: { ...docs.standard!.customer, legalName: "Pharaoh 𓀀 Ltd" },
    });
    expect(warnings).toEqual([
      "INV-2026-00001: no font of the PDF has U+13000: printed as \uFFFD (the e-invoice and the register keep the text as written)",
    ]);
    expect(text(file)).toContain("BILL TO Pharaoh \uFFFD Ltd");
  });

  it(`a name of 10,000 characters prints cut to ${NAME_LIMIT}, visibly, on one page; the document keeps it whole`, async () => {
    const long = `Ü${"lange Firma ".repeat(834)}`;
    const doc = {
      ...docs.standard!,
      customer: {
        ...docs.standard!.customer,
        legalName: long,
        address: Array.from({ length: 50 }, (_, i) => `Street ${i} ${"x".repeat(500)}`),
      },
    };
    const started = process.hrtime.bigint();
    const { file, bytes } = await render("long", doc);
    expect(Number(process.hrtime.bigint() - started) / 1e9).toBeLessThan(5);
    expect(bytes.length).toBeLessThan(200_000);
    const all = pages(file);
    expect(all).toHaveLength(1);
    expect(all[0]).toContain(
      `BILL TO ${Array.from(long)
        .slice(0, NAME_LIMIT - 1)
        .join("")
        .replace(/\s+/g, " ")}…`,
    );
    expect(all[0]).toContain("… and 45 more lines");
    expect(doc.customer.legalName).toHaveLength(long.length);
  });

  it("the same document gives the same bytes, dated by its issue date", async () => {
    const first = await renderInvoicePdf(docs.standard!);
    const again = await renderInvoicePdf(readBack(docs.standard!));
    expect(again.equals(first)).toBe(true);
    const info = execFileSync("pdfinfo", [(await render("dated", docs.standard!)).file], { encoding: "utf8" });
    expect(info).toMatch(/CreationDate:\s+Mon Nov\s+2 00:00:00 2026 UTC/);
  });

  it("a draft: DRAFT on every page, no number, nothing to pay", async () => {
    const { number: _number, ...rest } = docs.threePrices!;
    // enough lines for a second page
    const lines = Array.from({ length: 40 }, () => docs.threePrices!.lines).flat();
    const draft: DraftDocument = { ...rest, lines };
    const all = pages((await render("draft", draft)).file);
    expect(all.length).toBeGreaterThan(1);
    for (const page of all) {
      expect(page).toContain("DRAFT");
      expect(page).toContain("DRAFT, not an invoice · account 7102");
      expect(page).not.toContain("INV-");
    }
    expect(all[0]).toContain("Invoice (DRAFT)");
    expect(all[0]).toContain("Invoice number DRAFT, not numbered");
    expect(all.join(" ")).toContain("This is a draft, not an invoice: no payment is due on it.");
  });
});
