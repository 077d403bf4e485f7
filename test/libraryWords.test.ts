import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/shellExamples.js";

// The library's messages name its options as a script writes them (`skipBad: true`, `out: DIR`);
// the command line rewrites them into flags (src/cli/flagWords.ts). So no text the library
// writes names a flag (`--out`) or a command line (`cloudunits invoices list`). The text is
// every string and template literal of src/ outside src/cli/ (comments are not read).

/** Literals of src/ that may name flags or commands, each with why: every literal of `file`, or those holding `text`. */
const ALLOWED: { file: string; text?: string; reason: string }[] = [
  {
    file: "export/billingFormats.ts",
    reason:
      "the checks and --help texts of `billing --format`: a CLI-only helper (only src/cli/commands/billing.ts imports it)",
  },
  { file: "serve/pages/style.ts", reason: "CSS custom properties (`--ink`), not flags" },
  {
    file: "serve/pages/overviewPage.ts",
    reason:
      "the dashboard's pages, read by whoever runs it (started with `cloudunits serve`): what to run, not an error or a warning",
  },
  { file: "serve/pages/accountPage.ts", reason: "the dashboard's pages, as above" },
  { file: "serve/pages/qualityPage.ts", reason: "the dashboard's pages, as above" },
  { file: "serve/pages/entityPage.ts", reason: "the dashboard's pages, as above" },
  { file: "store/schema.ts", reason: "SQL comments of the schema, naming the commands that write each column" },
  {
    file: "export/xlsx/hourlySheet.ts",
    text: "rows: use --format csv --detail hourly",
    reason: "a note written into the workbook (a file, not a message), which the CLI cannot reword",
  },
  {
    file: "base/errors.ts",
    text: "accept a lost one with --accept-lost HOUR",
    reason:
      "StaleWarehouseError is made only by `cloudunits status` (src/cli/commands/status.ts), and accepting a lost hour is a flag of status: no library function does it",
  },
];

const allowed = (file: string, text: string): boolean =>
  ALLOWED.some((a) => a.file === file && (a.text === undefined || text.includes(a.text)));

const FLAG = /(?:^|[\s(`'"[])--[a-z]/;
const COMMANDS = readdirSync(join(REPO, "src", "cli", "commands"))
  .filter((f) => f.endsWith(".ts") && f !== "index.ts")
  .map((f) => f.replace(/\.ts$/, ""));
const COMMAND_LINE = new RegExp(`\\bcloudunits (?:${COMMANDS.join("|")})\\b`);
const names = (text: string): boolean => FLAG.test(text) || COMMAND_LINE.test(text);

/** The text of every string and template literal of a TypeScript source, with its line. */
function literals(file: string): { line: number; text: string }[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: { line: number; text: string }[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text });
    }
    node.forEachChild(visit);
  };
  visit(source);
  return found;
}

describe("the library's words", () => {
  const files = readdirSync(join(REPO, "src"), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.startsWith("cli/"))
    .sort();

  it("no literal of src/ outside src/cli/ names a flag or a cloudunits command line (but the files allowed, each with its reason)", () => {
    const offending = files.flatMap((f) =>
      literals(join(REPO, "src", f))
        .filter(({ text }) => names(text) && !allowed(f, text))
        .map(({ line, text }) => `src/${f}:${line}: ${text}`),
    );
    expect(offending).toEqual([]);
  });

  it("each file allowed exists and still names a flag or a command, so the list holds no dead entry", () => {
    for (const { file, text } of ALLOWED) {
      expect(files, file).toContain(file);
      expect(
        literals(join(REPO, "src", file)).some((l) => names(l.text) && (text === undefined || l.text.includes(text))),
        `${file} ${text ?? ""}`,
      ).toBe(true);
    }
  });
});
