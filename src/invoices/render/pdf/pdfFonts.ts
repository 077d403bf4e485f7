import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateSync } from "node:zlib";
import type * as Fontkit from "fontkit";

/** What fonts are registered in: a PDFKit document (typed here on its own, so that this module's declarations need no PDFKit types). */
interface Doc {
  registerFont(name: string, src: string | Buffer): unknown;
}

/**
 * The fonts of documents: DejaVu Sans (Latin with its accents, Greek, Cyrillic, Arabic, Hebrew,
 * Armenian, Georgian) and, for every character it lacks, UnifontEX (the whole of Unicode's first
 * planes: Chinese, Japanese and Korean, Thai, Devanagari...). Both are free fonts from npm
 * packages, embedded as subsets. The packages are development dependencies: the build copies these
 * five files (and their licenses) into fonts/ beside this module (scripts/build.mjs reads this list), and the package
 * ships those alone, not the packages' other 19 font files.
 */
const FILES = {
  regular: "dejavu-fonts-ttf/ttf/DejaVuSans.ttf",
  bold: "dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf",
  condensed: "dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf",
  condensedBold: "dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf",
  // WOFF, not its WOFF2: pdfkit's fontkit draws nothing from this WOFF2
  fallback: "@fontsource/unifontex/files/unifontex-latin-400-normal.woff",
} as const;

/** A face of the document's text; each falls back to UnifontEX for what DejaVu lacks. */
export type Face = "regular" | "bold" | "condensed" | "condensedBold";

const require = createRequire(import.meta.url);
/** The built package's fonts: a fonts/ folder beside this module's .js (scripts/build.mjs). */
const BUILT_FONTS = new URL("./fonts/", import.meta.url);
/** A font's file: the built package's copy, else (running from src/) the development dependency's. */
const fileOf = (key: keyof typeof FILES) => {
  const built = fileURLToPath(new URL(basename(FILES[key]), BUILT_FONTS));
  return existsSync(built) ? built : require.resolve(FILES[key]);
};

/**
 * A WOFF (1.0) font as the plain TrueType/OpenType file it wraps: each table inflated once. The
 * font engine would inflate a WOFF's whole glyph table again for every glyph it reads (seconds per
 * name in CJK); from the plain file it reads them directly.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.toString("latin1", 0, 4) !== "wOFF") throw new RangeError("not a WOFF 1.0 font");
  const numTables = woff.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const at = 44 + 20 * i;
    const [offset, compLength, origLength] = [
      woff.readUInt32BE(at + 4),
      woff.readUInt32BE(at + 8),
      woff.readUInt32BE(at + 12),
    ];
    const stored = woff.subarray(offset, offset + compLength);
    return {
      tag: woff.subarray(at, at + 4),
      checksum: woff.readUInt32BE(at + 16),
      data: compLength < origLength ? inflateSync(stored) : stored,
    };
  });
  const entrySelector = Math.floor(Math.log2(numTables));
  const head = Buffer.alloc(12 + 16 * numTables);
  woff.copy(head, 0, 4, 8); // the flavor: the sfnt version
  head.writeUInt16BE(numTables, 4);
  head.writeUInt16BE(16 * 2 ** entrySelector, 6);
  head.writeUInt16BE(entrySelector, 8);
  head.writeUInt16BE(16 * numTables - 16 * 2 ** entrySelector, 10);
  const body: Buffer[] = [];
  let offset = head.length;
  tables.forEach((t, i) => {
    t.tag.copy(head, 12 + 16 * i);
    head.writeUInt32BE(t.checksum, 12 + 16 * i + 4);
    head.writeUInt32BE(offset, 12 + 16 * i + 8);
    head.writeUInt32BE(t.data.length, 12 + 16 * i + 12);
    const padded = Buffer.alloc((t.data.length + 3) & ~3);
    t.data.copy(padded);
    body.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([head, ...body]);
}

let fallbackFont: Buffer | undefined;
/** The fallback font as a plain font file, made once. */
const fallbackBytes = () => (fallbackFont ??= woffToSfnt(readFileSync(fileOf("fallback"))));

let coverage: { primary: (cp: number) => boolean; fallback: (cp: number) => boolean } | undefined;

/** Which characters the fonts have (the DejaVu faces share one repertoire). Opened once. */
function fontCoverage(): NonNullable<typeof coverage> {
  if (!coverage) {
    const { create: openFont } = require("fontkit") as typeof Fontkit; // loads only when a document is made
    const primary = openFont(readFileSync(fileOf("regular")));
    const fallback = openFont(fallbackBytes());
    coverage = {
      primary: (cp) => primary.hasGlyphForCodePoint(cp),
      fallback: (cp) => fallback.hasGlyphForCodePoint(cp),
    };
  }
  return coverage;
}

/** Registers the faces and the fallback in a document. */
export function registerFonts(doc: Doc): void {
  for (const key of Object.keys(FILES) as (keyof typeof FILES)[])
    doc.registerFont(key, key === "fallback" ? fallbackBytes() : fileOf(key));
}

/** A piece of a line drawn in one font. */
export interface FontRun {
  font: Face | "fallback";
  text: string;
}

const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const STRONG = /[\p{L}\p{N}]/u;
/** Characters that need no glyph of their own (controls, joiners): never a box, never a warning. */
const INVISIBLE = /[\u0000-\u001F\u007F-\u009F\u200B-\u200F\u202A-\u202E\u2060-\u2064\uFE00-\uFE0F\uFEFF]/u;

/**
 * The characters of a text no font of the document has (each once, in order); they print as
 * U+FFFD, visibly, and the renderer warns.
 */
export function missingGlyphs(text: string): string[] {
  const { primary, fallback } = fontCoverage();
  const out = new Set<string>();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (!INVISIBLE.test(ch) && ch !== " " && !primary(cp) && !fallback(cp)) out.add(ch);
  }
  return [...out];
}

/**
 * A text as runs of one font each: DejaVu where it has the character, UnifontEX where only it
 * does, U+FFFD where neither does; controls dropped. A run of right-to-left script (Arabic,
 * Hebrew) keeps its spaces as no-break spaces, so that the font engine lays it out, right to left,
 * as one piece; when the line's first letter is right-to-left, its runs go right to left too.
 */
export function fontRuns(text: string, face: Face): FontRun[] {
  const { primary, fallback } = fontCoverage();
  const pieces: { font: FontRun["font"]; rtl: boolean; text: string }[] = [];
  for (const ch of text) {
    if (INVISIBLE.test(ch)) continue;
    const cp = ch.codePointAt(0)!;
    const font = primary(cp) || ch === " " ? face : fallback(cp) ? "fallback" : face;
    const shown = font === face && !primary(cp) && ch !== " " ? "\uFFFD" : ch;
    const rtl = RTL.test(ch);
    const last = pieces[pieces.length - 1];
    // a space between two right-to-left letters stays in their run
    if (last && last.font === font && (last.rtl === rtl || (ch === " " && last.rtl))) last.text += shown;
    else pieces.push({ font, rtl, text: shown });
  }
  const runs = pieces.flatMap((p) => {
    if (!p.rtl) return [{ font: p.font, text: p.text }];
    const inner = p.text.replace(/ +$/, "");
    const trailing = p.text.slice(inner.length);
    return [
      { font: p.font, text: inner.replaceAll(" ", "\u00A0") },
      ...(trailing ? [{ font: p.font, text: trailing }] : []),
    ];
  });
  const first = [...text].find((ch) => STRONG.test(ch));
  return first !== undefined && RTL.test(first) ? runs.reverse() : runs;
}
