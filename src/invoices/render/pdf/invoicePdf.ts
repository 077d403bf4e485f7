import type { DraftDocument, InvoiceDocument } from "../../document/invoiceDocument.js";
import { documentWords, type DocumentWords } from "../../document/documentWords.js";
import {
  block,
  CONTENT_WIDTH,
  draftMarks,
  ensureRoom,
  footers,
  GREY,
  heading,
  PAGE,
  paragraph,
  row,
  rule,
  table,
  type Column,
} from "./pdfLayout.js";
import { missingGlyphs, registerFonts } from "./pdfFonts.js";

type Doc = PDFKit.PDFDocument;

/** Options of `renderInvoicePdf`. */
export interface InvoicePdfOptions {
  /** Told of what the PDF cannot show as written (a character no font of the document has, printed as U+FFFD). */
  onWarning?: (message: string) => void;
}

/** The first page's head: the issuer on the left, the title and facts on the right, the customer below. */
function head(doc: Doc, w: DocumentWords): void {
  const right = PAGE.margin + CONTENT_WIDTH / 2 - 10;
  const rightWidth = CONTENT_WIDTH / 2 + 10;
  const leftBottom = block(doc, PAGE.margin, PAGE.margin, CONTENT_WIDTH / 2 - 20, w.issuer.name, w.issuer.lines);
  doc
    .font("bold")
    .fontSize(18)
    .fillColor("black")
    .text(w.draft ? `${w.title} (DRAFT)` : w.title, right, PAGE.margin, { width: rightWidth });
  doc.moveDown(0.3);
  for (const [label, value] of w.facts) {
    const y = doc.y;
    doc.font("regular").fontSize(8.5).fillColor(GREY).text(label, right, y, { width: 86 });
    doc
      .fillColor("black")
      .font("bold")
      .text(value, right + 86, y, { width: rightWidth - 86 });
  }
  const y = Math.max(leftBottom, doc.y) + 18;
  doc.font("regular").fontSize(8).fillColor(GREY).text("BILL TO", PAGE.margin, y);
  block(doc, PAGE.margin, doc.y + 2, CONTENT_WIDTH / 2 + 40, w.customer.name, w.customer.lines);
  doc.x = PAGE.margin;
}

function notes(doc: Doc, w: DocumentWords): void {
  if (w.notes.length === 0) return;
  doc.moveDown(1);
  for (const note of w.notes) {
    const missing = /had no consumption data/.test(note);
    paragraph(doc, note, { size: 9, bold: true, color: missing ? "#a00000" : "black" });
    doc.moveDown(0.3);
  }
}

/** The lines, the totals (net, each tax line, the amount due), how amounts are rounded, and what to pay. */
function charges(doc: Doc, w: DocumentWords): void {
  heading(doc, `Charges (${w.currency})`);
  const dated = w.lines.some((l) => l.period !== undefined);
  const columns: Column[] = dated
    ? [
        { header: "Description", width: 100, align: "left" },
        { header: "Price period", width: 135, align: "left" },
        { header: "Quantity", width: 90, align: "right" },
        { header: "Unit price", width: 90, align: "right" },
        { header: "Net amount", width: 80.28, align: "right" },
      ]
    : [
        { header: "Description", width: 190, align: "left" },
        { header: "Quantity", width: 115, align: "right" },
        { header: "Unit price", width: 105, align: "right" },
        { header: "Net amount", width: 85.28, align: "right" },
      ];
  table(
    doc,
    columns,
    w.lines.map((l) =>
      dated
        ? [l.description, l.period ?? "", l.quantity, l.unitPrice, l.net]
        : [l.description, l.quantity, l.unitPrice, l.net],
    ),
  );
  rule(doc, 0.8, "#333333");
  const last = columns[columns.length - 1]!;
  const merged: Column[] = [{ header: "", width: CONTENT_WIDTH - last.width, align: "right" }, last];
  for (const t of w.totals) {
    ensureRoom(doc, 18);
    if (t.bold) rule(doc);
    row(doc, merged, [t.label, t.amount], { bold: t.bold, size: t.bold ? 10.5 : 8.5 });
  }
  doc.moveDown(0.4);
  paragraph(doc, w.rounding, { size: 7.5, color: GREY });
  doc.moveDown(0.6);
  const [sentence, ...details] = w.payment;
  paragraph(doc, sentence!, { size: 9, bold: true });
  if (details.length > 0) paragraph(doc, details.join("\n"), { size: 8.5 });
}

/** Every text of the document a customer reads, for the glyph check. */
function textsOf(w: DocumentWords): string[] {
  return [
    w.issuer.name,
    ...w.issuer.lines,
    w.customer.name,
    ...w.customer.lines,
    ...w.notes,
    ...w.facts.flat(),
    ...w.payment,
    ...w.lines.map((l) => l.description),
  ];
}

/**
 * Renders an invoice or credit note (or a draft) as a PDF, A4 portrait, fonts embedded, as bytes:
 * the issuer, the title ("Invoice", "Credit note") with its number, dates in words, period and
 * account, the customer, the legal mentions, the lines, the net amount, each tax line and the
 * amount due (the gross), the rounding, what to pay and how. Every page's foot names the
 * document, the account and the period; a draft says DRAFT in its title, facts and foot and
 * across every page. Names in any script print (DejaVu Sans, UnifontEX where it lacks a
 * character); one no font has prints as U+FFFD and `onWarning` is told. The same document
 * gives the same bytes: the PDF's dates and ID come from the document, not the clock.
 */
export async function renderInvoicePdf(
  document: InvoiceDocument | DraftDocument,
  options: InvoicePdfOptions = {},
): Promise<Buffer> {
  const w = documentWords(document);
  const missing = [...new Set(textsOf(w).flatMap(missingGlyphs))];
  if (missing.length > 0) {
    const which = missing.map((c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`).join(", ");
    options.onWarning?.(
      `${document.number ?? `the draft of account ${document.accountId}`}: no font of the PDF has ${which}: printed as \uFFFD (the e-invoice and the register keep the text as written)`,
    );
  }
  const { default: PDFDocument } = await import("pdfkit"); // loads only when a PDF is made
  const created = new Date(`${document.issueDate}T00:00:00Z`);
  const doc = new PDFDocument({
    size: "A4",
    margins: { top: PAGE.margin, bottom: PAGE.margin + PAGE.footer, left: PAGE.margin, right: PAGE.margin },
    bufferPages: true,
    info: {
      Title: `${w.title} ${document.number ?? "(draft)"}, account ${document.accountId}`,
      Author: w.issuer.name,
      Subject: w.customer.name,
      Creator: "cloudunits",
      CreationDate: created,
      ModDate: created, // the same document renders the same bytes
    },
  });
  registerFonts(doc);
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  head(doc, w);
  notes(doc, w);
  charges(doc, w);
  footers(doc, w.footer);
  if (w.draft) draftMarks(doc);
  doc.end();
  return done;
}
