import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * No value read from a file, an option or the service ever goes into SQL text: it is bound as
 * a parameter (or goes through an appender or a table function). A text written into a SQL
 * literal broke every query on a NUL byte or a quote; a number option could carry SQL.
 * This test reads the sources (with the TypeScript checker) and refuses, in every template
 * literal that looks like SQL:
 *  - an interpolation inside a SQL string literal (`'${...}'`),
 *  - an interpolation whose type is not a string (numbers, bigints: values, to be bound),
 * and anywhere in src/ a helper that doubles single quotes (a value being escaped into SQL).
 * Interpolated strings are SQL fragments and identifiers the code makes.
 */

const ROOT = join(import.meta.dirname, "..");
const SRC = join(ROOT, "src");

/** Words that make a template literal SQL. */
const SQL_WORDS = /\b(SELECT|INSERT|DELETE|UPDATE|COPY|CREATE|ALTER|DROP|PRAGMA|ATTACH|SET|LIMIT|VALUES)\b/;

/**
 * Number interpolations that are not values, by file and expression, each with its reason.
 * Keep this list short: a value belongs in a parameter.
 */
const NOT_VALUES: Record<string, Record<string, string>> = {
  "src/stats/buildStatsSql.ts": {
    i: "the position of a series in the request's own list: an integer the code counts, not a value read",
  },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/**
 * Whether `text` leaves a single-quoted SQL literal open (doubled quotes toggle twice); a `--`
 * comment outside a literal runs to the end of its line, so an apostrophe in it opens nothing.
 */
function opensQuote(text: string): boolean {
  let open = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'") open = !open;
    else if (!open && text.startsWith("--", i)) i = text.includes("\n", i) ? text.indexOf("\n", i) : text.length;
  }
  return open;
}

interface Finding {
  where: string;
  problem: string;
}

/** Findings of the rules above in `files`, checked with a program over them. */
function findValuesInSql(files: string[]): Finding[] {
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const findings: Finding[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file)!;
    const name = relative(ROOT, file);
    const where = (node: ts.Node) => `${name}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isTemplateExpression(node)) {
        const texts = [node.head.text, ...node.templateSpans.map((s) => s.literal.text)];
        if (SQL_WORDS.test(texts.join(" "))) {
          let before = node.head.text;
          for (const span of node.templateSpans) {
            const expression = span.expression.getText(source);
            if (opensQuote(before))
              findings.push({ where: where(span), problem: `\${${expression}} inside a SQL string literal` });
            const type = checker.getTypeAtLocation(span.expression);
            const isString =
              (type.flags & ts.TypeFlags.StringLike) !== 0 ||
              (type.isUnion() && type.types.every((t) => (t.flags & ts.TypeFlags.StringLike) !== 0));
            if (!isString && NOT_VALUES[name]?.[expression] === undefined) {
              findings.push({
                where: where(span),
                problem: `\${${expression}} of type ${checker.typeToString(type)} written into SQL`,
              });
            }
            before += `\${}${span.literal.text}`;
          }
        }
      }
      if (ts.isCallExpression(node) && /^replace(All)?$/.test(node.expression.getText(source).split(".").pop() ?? "")) {
        const [pattern, replacement] = node.arguments;
        if (
          pattern &&
          replacement &&
          /^["'`/]\\?'/.test(pattern.getText(source)) &&
          /''/.test(replacement.getText(source))
        ) {
          findings.push({ where: where(node), problem: `${node.getText(source)} escapes a value into SQL` });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return findings;
}

describe("values never go into SQL text", () => {
  it("src/ writes no value into a SQL template: texts and numbers are bound", () => {
    expect(findValuesInSql(sourceFiles(SRC))).toEqual([]);
  }, 120_000);

  it("finds each kind of value written into SQL (a crafted source)", async () => {
    const { mkdtemp, writeFile, rm } = await import("node:fs/promises");
    const dir = await mkdtemp(join(ROOT, "test/.sqlText-"));
    try {
      const file = join(dir, "bad.ts");
      await writeFile(
        file,
        [
          "export const a = (status: string) => `SELECT * FROM machines WHERE status = '${status}'`;",
          "export const b = (limit: number) => `SELECT * FROM machines LIMIT ${limit}`;",
          "export const c = (t: string) => `SELECT '${t.replaceAll(\"'\", \"''\")}'`;",
          "export const ok = (table: string) => `SELECT count(*) FROM ${table} WHERE status = $status`;",
          "const DDL = 'CREATE TABLE t (x INT)';",
          "export const commented = `-- the account's table\\n${DDL}\\nSELECT 'it''s' AS s -- and a note's apostrophe\\n${DDL}`;",
          "export const d = (v: string) => `-- a comment\\nSELECT 'x' -- it's\\nWHERE s = '${v}'`;",
        ].join("\n"),
      );
      const found = findValuesInSql([file]).map((f) => f.problem);
      expect(found).toEqual([
        "${status} inside a SQL string literal",
        "${limit} of type number written into SQL",
        '${t.replaceAll("\'", "\'\'")} inside a SQL string literal',
        't.replaceAll("\'", "\'\'") escapes a value into SQL',
        "${v} inside a SQL string literal",
      ]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
