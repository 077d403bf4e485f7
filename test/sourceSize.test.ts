import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// What a maintainer reads at once stays small: no source file of src/ over MOST_LINES lines, no
// function (declaration, method, arrow or function expression, measured from its first line to its
// last) over MOST_FUNCTION_LINES. The billing engine grew by a road at a time to 1,088 lines with
// a 141-line `add` before it was split into companions (issue 44); a file or function that passes a
// limit is split where it grows, by what it does.

const SRC = join(import.meta.dirname, "..", "src");
const MOST_LINES = 500;
const MOST_FUNCTION_LINES = 80;

/**
 * Those over a limit when the limits came, each at most as long as it was then (`path` or
 * `path:function`: lines): none may grow, and each leaves this list when it is split. Not a
 * place for new ones. The limits came on the day customers, currencies, contracts and partial
 * credit notes (issue 42) landed beside them: the lengths those grew to are noted, to split first.
 */
const OVER_WHEN_THE_LIMITS_CAME: Record<string, number> = {};

/** A function's name as this test lists it: its own, its property's or variable's, else `(anonymous)`. */
function nameOf(node: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (node.name !== undefined) return node.name.getText(file);
  const parent = node.parent;
  if ((ts.isPropertyAssignment(parent) || ts.isVariableDeclaration(parent)) && parent.name !== undefined)
    return parent.name.getText(file);
  return "(anonymous)";
}

/** Every `.ts` file of src/ with its lines, and every function of it with its lines, as `path` and `path:name`. */
function measure(): Map<string, number> {
  const sizes = new Map<string, number>();
  const files = readdirSync(SRC, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  for (const path of files.map((f) => relative(SRC, join(SRC, f)).replaceAll("\\", "/"))) {
    const text = readFileSync(join(SRC, path), "utf8");
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
    const lineOf = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
    sizes.set(path, lineOf(text.trimEnd().length) + 1);
    file.forEachChild(function visit(node) {
      if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
        const key = `${path}:${nameOf(node, file)}`;
        const lines = lineOf(node.end) - lineOf(node.getStart(file)) + 1;
        sizes.set(key, Math.max(lines, sizes.get(key) ?? 0));
      }
      node.forEachChild(visit);
    });
  }
  return sizes;
}

describe("source size", () => {
  const sizes = measure();
  const over = [...sizes].filter(([key, lines]) => lines > (key.includes(":") ? MOST_FUNCTION_LINES : MOST_LINES));

  it(`no file of src/ over ${MOST_LINES} lines, no function over ${MOST_FUNCTION_LINES}, but those listed, none longer than it was`, () => {
    const grown = over.filter(([key, lines]) => lines > (OVER_WHEN_THE_LIMITS_CAME[key] ?? 0));
    expect(grown.map(([key, lines]) => `${key}: ${lines} lines`)).toEqual([]);
  });

  it("lists only what is still over a limit: a file or function split leaves the list", () => {
    const still = new Set(over.map(([key]) => key));
    expect(Object.keys(OVER_WHEN_THE_LIMITS_CAME).filter((key) => !still.has(key))).toEqual([]);
  });

  it("measures the billing engine split by road: no part of it near the limits", () => {
    for (const file of ["billingEngine.ts", "engineSums.ts", "engineGrouped.ts", "engineHourly.ts", "engineState.ts"])
      expect(sizes.get(`billing/${file}`), file).toBeLessThanOrEqual(MOST_LINES);
    expect(sizes.get("billing/billingEngine.ts:add")).toBeLessThanOrEqual(40);
  });
});
