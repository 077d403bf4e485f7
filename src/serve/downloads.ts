import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StatementConfig } from "../invoices/document/statementConfig.js";
import { renderInvoicePdf } from "../invoices/render/pdf/invoicePdf.js";
import { draftDocument } from "../invoices/document/draftDocument.js";
import { accountFileName, writeBillingXlsx } from "../export/writeBillingXlsx.js";
import { issuedFiles } from "../invoices/verifiedRegister.js";
import type { Warehouse } from "../store/types.js";
import type { AccountData } from "./accountData.js";
import type { Answer } from "./answer.js";
import { NotFoundError } from "./notFound.js";

const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** The file name of a download: `account-7-acme-corp-2026-10.xlsx` (the name's letters in any script). */
export function downloadName(data: AccountData, extension: string): string {
  return accountFileName(data.accountId, data.name).replace(/\.xlsx$/, `-${data.month.month}.${extension}`);
}

/**
 * `Content-Disposition` of a download named `fileName` (RFC 6266): the name itself when it is
 * plain ASCII, else an ASCII stand-in (`_` for each other character) and the name in UTF-8 as
 * `filename*`, which browsers use. Node refuses a header with a character past U+00FF (a CJK or
 * Greek name ended the dashboard) and garbles the rest of Latin-1's.
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\%]/g, "_");
  if (ascii === fileName) return `attachment; filename="${fileName}"`;
  const encoded = encodeURIComponent(fileName).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The account's statement workbook (`billing --account-id --format xlsx`), as a download. */
export async function workbookAnswer(data: AccountData): Promise<Answer> {
  const dir = await mkdtemp(join(tmpdir(), "cloudunits-serve-"));
  try {
    const file = join(dir, "statement.xlsx");
    await writeBillingXlsx(data.report, undefined, file);
    return {
      type: XLSX,
      body: await readFile(file),
      headers: { "content-disposition": contentDisposition(downloadName(data, "xlsx")) },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A file of the account's invoice of the month as it was issued (`pdf` or `xml`), byte for byte
 * from the register: never rendered again, so it is the document the customer received. A
 * register that disagrees with its chain hands out nothing (RegisterBrokenError: 409).
 */
export async function issuedFileAnswer(store: Warehouse, data: AccountData, extension: "pdf" | "xml"): Promise<Answer> {
  const issued = data.totals?.issued;
  const name = issued?.files.find((f) => f.endsWith(`.${extension}`));
  if (!issued || !name)
    throw new NotFoundError(
      `account ${data.accountId} has no issued invoice ${extension === "pdf" ? "PDF" : "e-invoice (XML)"} for ${data.month.month}`,
    );
  const file = (await issuedFiles(store.connection, issued.number)).find((f) => f.name === name);
  if (!file) throw new NotFoundError(`${name} of ${issued.number} is not in the register`);
  return {
    type: extension === "pdf" ? "application/pdf" : "application/xml",
    body: Buffer.from(file.bytes),
    headers: { "content-disposition": contentDisposition(name) },
  };
}

/** The account's PDF statement (a draft: the dashboard never numbers one), as a download. */
export async function statementPdfAnswer(data: AccountData, config: StatementConfig | undefined): Promise<Answer> {
  if (!config || !data.invoice)
    throw new NotFoundError("a PDF statement needs the dashboard started with a price list and a statement config");
  // a draft: the dashboard never issues an invoice
  return {
    type: "application/pdf",
    body: await renderInvoicePdf(draftDocument(data.report, data.accountId, config)),
    headers: { "content-disposition": contentDisposition(downloadName(data, "pdf")) },
  };
}
