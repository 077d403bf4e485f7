import { fontRuns, type Face } from "./pdfFonts.js";

type Doc = PDFKit.PDFDocument;

/** A4 portrait in points, and the margins. */
export const PAGE = { width: 595.28, height: 841.89, margin: 50, footer: 36 } as const;
export const CONTENT_WIDTH = PAGE.width - 2 * PAGE.margin;
/** The lowest y the body may reach: above the footer. */
const BODY_BOTTOM = PAGE.height - PAGE.margin - PAGE.footer;
export const GREY = "#555555";
const RULE = "#999999";

/** A column of a table: its header, width (points) and alignment. */
export interface Column {
  header: string;
  width: number;
  align: "left" | "right";
}

/** Moves to a new page when `height` points do not fit above the footer; returns whether it did. */
export function ensureRoom(doc: Doc, height: number): boolean {
  if (doc.y + height <= BODY_BOTTOM) return false;
  doc.addPage();
  return true;
}

/**
 * Writes a text at (x, y) in `width`, wrapped, in `face`, each run in the font that has its
 * characters (see `fontRuns`: names in any script); leaves doc.y below it.
 */
export function writeText(doc: Doc, text: string, x: number, y: number, width: number, face: Face, size: number): void {
  doc.fontSize(size);
  text.split("\n").forEach((line, n) => {
    const runs = fontRuns(line, face);
    if (runs.length === 0) runs.push({ font: face, text: " " }); // an empty line keeps its height
    runs.forEach((run, i) => {
      doc.font(run.font);
      const more = i < runs.length - 1;
      if (i === 0) doc.text(run.text, x, n === 0 ? y : doc.y, { width, continued: more });
      else doc.text(run.text, { continued: more });
    });
  });
}

/** Writes one table row at the current y, each cell wrapped in its column; `bold` for headers and totals. */
export function row(
  doc: Doc,
  columns: readonly Column[],
  cells: readonly string[],
  options: { bold?: boolean; size?: number } = {},
): void {
  const size = options.size ?? 8.5;
  doc.font(options.bold ? "condensedBold" : "condensed").fontSize(size);
  const pad = 3;
  const height =
    Math.max(...columns.map((c, i) => doc.heightOfString(cells[i] ?? "", { width: c.width - 2 * pad }))) + 2 * pad;
  const top = doc.y;
  let x = PAGE.margin;
  columns.forEach((c, i) => {
    doc.text(cells[i] ?? "", x + pad, top + pad, { width: c.width - 2 * pad, align: c.align });
    x += c.width;
  });
  doc.x = PAGE.margin;
  doc.y = top + height;
}

export function rule(doc: Doc, weight = 0.5, color = RULE): void {
  doc
    .save()
    .moveTo(PAGE.margin, doc.y)
    .lineTo(PAGE.margin + CONTENT_WIDTH, doc.y)
    .lineWidth(weight)
    .strokeColor(color)
    .stroke()
    .restore();
}

/** A table: the header row (repeated on each new page), then the rows. */
export function table(doc: Doc, columns: readonly Column[], rows: readonly string[][]): void {
  const header = () => {
    row(
      doc,
      columns,
      columns.map((c) => c.header),
      { bold: true, size: 8 },
    );
    rule(doc, 0.8, "#333333");
  };
  header();
  for (const cells of rows) {
    doc.font("condensed").fontSize(8.5);
    const height = Math.max(...columns.map((c, i) => doc.heightOfString(cells[i] ?? "", { width: c.width - 6 }))) + 6;
    if (ensureRoom(doc, height)) header();
    row(doc, columns, cells);
  }
}

/** A block of lines at (x, y) in `width`: a bold first line, then the rest, each in the fonts its characters need; returns the y below it. */
export function block(doc: Doc, x: number, y: number, width: number, title: string, lines: readonly string[]): number {
  doc.fillColor("black");
  writeText(doc, title, x, y, width, "bold", 9);
  for (const line of lines) writeText(doc, line, x, doc.y, width, "regular", 9);
  return doc.y;
}

export function heading(doc: Doc, text: string): void {
  ensureRoom(doc, 40);
  doc.moveDown(0.8);
  doc.font("bold").fontSize(11).fillColor("black").text(text, PAGE.margin, doc.y, { width: CONTENT_WIDTH });
  doc.moveDown(0.3);
}

/** A paragraph across the page, in the fonts its characters need. */
export function paragraph(
  doc: Doc,
  text: string,
  options: { size?: number; color?: string; bold?: boolean } = {},
): void {
  const size = options.size ?? 8.5;
  doc.font(options.bold ? "bold" : "regular").fontSize(size);
  ensureRoom(doc, doc.heightOfString(text, { width: CONTENT_WIDTH }));
  doc.fillColor(options.color ?? "black");
  writeText(doc, text, PAGE.margin, doc.y, CONTENT_WIDTH, options.bold ? "bold" : "regular", size);
  doc.fillColor("black");
}

/** Writes `left` and "page i of n" at the foot of every page (buffered pages). */
export function footers(doc: Doc, left: string): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const y = PAGE.height - PAGE.margin - 16;
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing below the body must not open a page
    doc
      .save()
      .moveTo(PAGE.margin, y - 6)
      .lineTo(PAGE.margin + CONTENT_WIDTH, y - 6)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke()
      .restore();
    doc.font("regular").fontSize(7.5).fillColor(GREY);
    doc.text(left, PAGE.margin, y, { width: CONTENT_WIDTH - 80, lineBreak: false });
    doc.text(`page ${i + 1 - range.start} of ${range.count}`, PAGE.margin + CONTENT_WIDTH - 80, y, {
      width: 80,
      align: "right",
      lineBreak: false,
    });
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor("black");
}

/** "DRAFT" across every page, large and light, so no page of a draft passes for an invoice. */
export function draftMarks(doc: Doc): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc.save();
    doc.rotate(-40, { origin: [PAGE.width / 2, PAGE.height / 2] });
    doc
      .font("bold")
      .fontSize(120)
      .fillColor("#d9d9d9")
      .fillOpacity(0.55)
      .text("DRAFT", 0, PAGE.height / 2 - 70, { width: PAGE.width, align: "center", lineBreak: false });
    doc.restore();
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor("black").fillOpacity(1);
}
