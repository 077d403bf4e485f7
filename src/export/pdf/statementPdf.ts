import { createRequire } from "node:module";
import type { StatementContent } from "./statementContent.js";

type Doc = PDFKit.PDFDocument;

/** DejaVu Sans covers Latin-1 and Latin Extended (é, ø, ł, ő, ș...), which PDF's standard fonts do not all have. */
const FONTS = { regular: "DejaVuSans.ttf", bold: "DejaVuSans-Bold.ttf", condensed: "DejaVuSansCondensed.ttf", condensedBold: "DejaVuSansCondensed-Bold.ttf" } as const;

/** A4 portrait in points, and the margins. */
const PAGE = { width: 595.28, height: 841.89, margin: 50, footer: 36 } as const;
const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
/** The lowest y the body may reach: above the footer. */
const BODY_BOTTOM = PAGE.height - PAGE.margin - PAGE.footer;
const GREY = "#555555";
const RULE = "#999999";

/** A column of a table: its header, width (points) and alignment. */
interface Column {
  header: string;
  width: number;
  align: "left" | "right";
}

/** Moves to a new page when `height` points do not fit above the footer; returns whether it did. */
function ensureRoom(doc: Doc, height: number): boolean {
  if (doc.y + height <= BODY_BOTTOM) return false;
  doc.addPage();
  return true;
}

/** Writes one table row at the current y, each cell wrapped in its column; `bold` for headers and totals. */
function row(doc: Doc, columns: readonly Column[], cells: readonly string[], options: { bold?: boolean; size?: number; indent?: number[] } = {}): void {
  const size = options.size ?? 8.5;
  doc.font(options.bold ? "condensedBold" : "condensed").fontSize(size);
  const pad = 3;
  const heights = columns.map((c, i) => doc.heightOfString(cells[i] ?? "", { width: c.width - 2 * pad - (options.indent?.[i] ?? 0) }));
  const height = Math.max(...heights) + 2 * pad;
  const top = doc.y;
  let x = PAGE.margin;
  columns.forEach((c, i) => {
    const indent = options.indent?.[i] ?? 0;
    doc.text(cells[i] ?? "", x + pad + indent, top + pad, { width: c.width - 2 * pad - indent, align: c.align });
    x += c.width;
  });
  doc.x = PAGE.margin;
  doc.y = top + height;
}

function rule(doc: Doc, weight = 0.5, color = RULE): void {
  doc.save().moveTo(PAGE.margin, doc.y).lineTo(PAGE.margin + CONTENT_WIDTH, doc.y).lineWidth(weight).strokeColor(color).stroke().restore();
}

/** A table: the header row (repeated on each new page), then the rows; `bold` rows and `indent`ed first cells as asked. */
function table(doc: Doc, columns: readonly Column[], rows: readonly { cells: string[]; bold?: boolean; indent?: number; ruleAbove?: boolean }[]): void {
  const header = () => {
    row(doc, columns, columns.map((c) => c.header), { bold: true, size: 8 });
    rule(doc, 0.8, "#333333");
  };
  header();
  for (const r of rows) {
    doc.font(r.bold ? "condensedBold" : "condensed").fontSize(8.5);
    const height = Math.max(...columns.map((c, i) => doc.heightOfString(r.cells[i] ?? "", { width: c.width - 6 - (i === 0 ? r.indent ?? 0 : 0) }))) + 6;
    if (ensureRoom(doc, height)) header();
    if (r.ruleAbove) rule(doc);
    row(doc, columns, r.cells, { bold: r.bold, indent: [r.indent ?? 0] });
  }
}

/** A block of lines at (x, y) in `width`: a bold first line, then the rest; returns the y below it. */
function block(doc: Doc, x: number, y: number, width: number, title: string, lines: readonly string[]): number {
  doc.font("bold").fontSize(9).fillColor("black").text(title, x, y, { width });
  doc.font("regular").fontSize(9);
  for (const line of lines) doc.text(line, x, doc.y, { width });
  return doc.y;
}

function heading(doc: Doc, text: string): void {
  ensureRoom(doc, 40);
  doc.moveDown(0.8);
  doc.font("bold").fontSize(11).fillColor("black").text(text, PAGE.margin, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.3);
}

function paragraph(doc: Doc, text: string, options: { size?: number; color?: string; bold?: boolean } = {}): void {
  doc.font(options.bold ? "bold" : "regular").fontSize(options.size ?? 8.5);
  ensureRoom(doc, doc.heightOfString(text, { width: CONTENT_WIDTH }));
  doc.fillColor(options.color ?? "black").text(text, PAGE.margin, doc.y, { width: CONTENT_WIDTH });
  doc.fillColor("black");
}

/** The first page's head: issuer on the left, the statement's number and dates on the right, the customer below. */
function head(doc: Doc, s: StatementContent): void {
  const right = PAGE.margin + CONTENT_WIDTH / 2 - 10;
  const rightWidth = CONTENT_WIDTH / 2 + 10;
  const issuerLines = [...s.issuer.address, ...(s.issuer.vatId ? [`VAT ${s.issuer.vatId}`] : []), ...s.issuer.contact];
  const leftBottom = block(doc, PAGE.margin, PAGE.margin, CONTENT_WIDTH / 2, s.issuer.legalName, issuerLines);
  doc.font("bold").fontSize(16).text(s.number === undefined ? "DRAFT STATEMENT" : "STATEMENT", right, PAGE.margin, { width: rightWidth });
  const facts: [string, string][] = [
    ["Statement number", s.number ?? "DRAFT, not numbered"],
    ["Issue date", s.issueDate],
    ["Due date", s.dueDate],
    ["Period", s.period],
    ["Account", String(s.accountId)],
  ];
  doc.moveDown(0.3);
  for (const [label, value] of facts) {
    const y = doc.y;
    doc.font("regular").fontSize(9).fillColor(GREY).text(label, right, y, { width: 88 });
    doc.fillColor("black").font("bold").text(value, right + 88, y, { width: rightWidth - 88 });
  }
  const y = Math.max(leftBottom, doc.y) + 18;
  const customerLines = [...s.customer.address, ...(s.customer.vatId ? [`VAT ${s.customer.vatId}`] : [])];
  doc.font("regular").fontSize(8).fillColor(GREY).text("BILL TO", PAGE.margin, y);
  doc.fillColor("black");
  block(doc, PAGE.margin, doc.y + 2, CONTENT_WIDTH / 2, s.customer.legalName, customerLines);
  doc.x = PAGE.margin;
}

/** The invoice lines, totals, taxes and the amount due. */
function charges(doc: Doc, s: StatementContent): void {
  heading(doc, `Charges (${s.currency})`);
  const dated = s.lines.some((l) => l.pricePeriod !== undefined);
  const columns: Column[] = dated
    ? [
      { header: "Description", width: 95, align: "left" }, { header: "Price period (UTC)", width: 120, align: "left" },
      { header: "Quantity", width: 95, align: "right" }, { header: "Unit price", width: 95, align: "right" }, { header: "Amount", width: 90.28, align: "right" },
    ]
    : [
      { header: "Description", width: 190, align: "left" }, { header: "Quantity", width: 115, align: "right" },
      { header: "Unit price", width: 105, align: "right" }, { header: "Amount", width: 85.28, align: "right" },
    ];
  const rows = s.lines.map((l) => {
    const cells = [`${l.unit}: ${l.description}`, `${l.quantity} ${l.quantityUnit}`, `${l.unitPrice} per ${l.priceUnit}`, l.amount];
    if (dated) cells.splice(1, 0, l.pricePeriod ?? "");
    return { cells };
  });
  table(doc, columns, rows);
  rule(doc, 0.8, "#333333");
  const n = columns.length;
  const total = (label: string, amount: string, bold = false) => {
    const cells = Array<string>(n).fill("");
    cells[0] = label;
    cells[n - 1] = amount;
    const merged: Column[] = [{ header: "", width: CONTENT_WIDTH - columns[n - 1]!.width, align: "right" }, columns[n - 1]!];
    ensureRoom(doc, 16);
    row(doc, merged, [label, amount], { bold, size: bold ? 10 : 8.5 });
  };
  if (s.taxes.length > 0) {
    total(`Total excluding tax (${s.currency})`, s.totalExcludingTax);
    for (const t of s.taxes) total(t.label, t.amount);
    rule(doc);
  }
  total(`Amount due (${s.currency})${s.taxes.length > 0 ? ", including tax" : ""}`, s.amountDue, true);
  doc.moveDown(0.4);
  paragraph(doc, s.roundingNote, { size: 7.5, color: GREY });
  doc.moveDown(0.4);
  paragraph(doc, `Please pay ${s.amountDue} ${s.currency} by ${s.dueDate}${s.number === undefined ? "" : `, quoting statement ${s.number}`}.`, { size: 9, bold: true });
  if (s.issuer.bank.length > 0) paragraph(doc, `Payment details:\n${s.issuer.bank.join("\n")}`, { size: 8.5 });
}

/** The allocation by cloud space, machine and gateway: allocated cost, never an amount due. */
function allocation(doc: Doc, s: StatementContent): void {
  if (s.allocation.length === 0) return;
  doc.addPage();
  heading(doc, `Allocation by cloud space and machine (allocated cost, ${s.currency})`);
  paragraph(doc, s.allocationNote, { size: 8, color: GREY });
  doc.moveDown(0.5);
  const columns: Column[] = [
    { header: "Cloud space / machine", width: 205.28, align: "left" }, { header: "id", width: 50, align: "right" },
    { header: s.cuOwnHeader, width: 80, align: "right" }, { header: s.cuAllocatedHeader, width: 80, align: "right" },
    { header: `allocated cost (${s.currency})`, width: 80, align: "right" },
  ];
  const rows = s.allocation.map((a) => ({
    cells: [a.level === "cloudspace" ? `Cloud space ${a.name}` : a.name, a.id, a.cuOwn, a.level === "gateway" ? "" : a.cuAllocated, a.allocatedCost],
    bold: a.level === "cloudspace",
    indent: a.level === "cloudspace" ? 0 : 12,
    ruleAbove: a.level === "cloudspace",
  }));
  // own CU has no total: under aggregate the parts' own CU do not add up to the account's
  rows.push({ cells: ["Total allocated (= total excluding tax)", "", "", s.cuAllocatedTotal, s.allocatedTotal], bold: true, indent: 0, ruleAbove: true });
  table(doc, columns, rows);
}

/** Writes "statement N · period · page i of n" at the foot of every page. */
function footers(doc: Doc, s: StatementContent): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const y = PAGE.height - PAGE.margin - 16;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing below the body must not open a page
    doc.save().moveTo(PAGE.margin, y - 6).lineTo(PAGE.margin + CONTENT_WIDTH, y - 6).lineWidth(0.5).strokeColor(RULE).stroke().restore();
    doc.font("regular").fontSize(7.5).fillColor(GREY);
    doc.text(`${s.number === undefined ? "Draft statement (not numbered)" : `Statement ${s.number}`} · account ${s.accountId}`, PAGE.margin, y, { width: CONTENT_WIDTH - 80 });
    doc.text(`period ${s.period}`, PAGE.margin, doc.y, { width: CONTENT_WIDTH - 80 });
    doc.text(`page ${i + 1 - range.start} of ${range.count}`, PAGE.margin + CONTENT_WIDTH - 80, y, { width: 80, align: "right" });
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor("black");
}

/** The fonts' files, from the dejavu-fonts-ttf package. */
function fontFile(name: string): string {
  return createRequire(import.meta.url).resolve(`dejavu-fonts-ttf/ttf/${name}`);
}

/**
 * Renders an account's statement as a PDF (A4 portrait, fonts embedded): the issuer, the
 * statement's number, issue and due dates and period, the customer, data notices, the
 * charges with taxes and the amount due, the definition of the units; then the allocation by
 * cloud space and machine. Every page's foot carries the number, the period and "page i of n".
 */
export async function renderStatementPdf(s: StatementContent): Promise<Buffer> {
  const { default: PDFDocument } = await import("pdfkit"); // loads only when a PDF is made
  const doc = new PDFDocument({
    size: "A4", margins: { top: PAGE.margin, bottom: PAGE.margin + PAGE.footer, left: PAGE.margin, right: PAGE.margin }, bufferPages: true,
    info: {
      Title: `Statement ${s.number ?? "(draft)"}, account ${s.accountId}, ${s.period}`, Author: s.issuer.legalName, Subject: s.customer.legalName, Creator: "cloudunits",
      CreationDate: new Date(`${s.issueDate}T00:00:00Z`), // a statement made again from the same data is the same file
    },
  });
  for (const [name, file] of Object.entries(FONTS)) doc.registerFont(name, fontFile(file));
  const chunks: Buffer[] = [];
  doc.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on("end", () => resolve(Buffer.concat(chunks)));
    doc.on("error", reject);
  });
  head(doc, s);
  if (s.notices.length > 0) {
    doc.moveDown(1);
    for (const notice of s.notices) {
      paragraph(doc, notice, { size: 9, bold: true, color: "#a00000" });
      doc.moveDown(0.3);
    }
  }
  charges(doc, s);
  heading(doc, "Units");
  paragraph(doc, s.unitsParagraph, { size: 8 });
  allocation(doc, s);
  footers(doc, s);
  doc.end();
  return done;
}
