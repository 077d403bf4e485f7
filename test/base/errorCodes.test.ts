/**
 * The error codes' catalog (src/base/errorCodes.ts) is what users read: docs/cli.md lists every
 * code with the exit code the command line gives it, and no error in src/ carries a code outside it.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ERROR_CODES, type ErrorCode } from "../../src/base/errorCodes.js";
import { BadFileError, FetchError, UsageError } from "../../src/base/errors.js";
import { exitCodeFor } from "../../src/cli/exitCode.js";

const ROOT = join(import.meta.dirname, "../..");

/** docs/cli.md's "Error codes" table: code → exit. */
async function documentedCodes(): Promise<Map<string, number>> {
  const doc = await readFile(join(ROOT, "docs/cli.md"), "utf8");
  const start = doc.indexOf("\n## Error codes\n");
  expect(start, "docs/cli.md has a section ## Error codes").toBeGreaterThan(-1);
  const end = doc.indexOf("\n## ", start + 1);
  const section = doc.slice(start, end === -1 ? undefined : end);
  return new Map([...section.matchAll(/^\| `([A-Z0-9_]+)` \| (\d+) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
}

/** Every .ts file under src/. */
async function sources(): Promise<{ file: string; text: string }[]> {
  const files = (await readdir(join(ROOT, "src"), { recursive: true })).map(String).filter((f) => f.endsWith(".ts"));
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(join(ROOT, "src", file), "utf8") })));
}

describe("error codes", () => {
  it("docs/cli.md lists every code of the catalog with its exit code, and no code the catalog lacks", async () => {
    const documented = await documentedCodes();
    const catalog = new Map(Object.entries(ERROR_CODES).map(([code, { exit }]) => [code, exit]));
    expect(catalog.size).toBeGreaterThan(100);
    expect(documented).toEqual(catalog);
  });

  it("every code an error in src/ is given is in the catalog (data-quality warnings have codes of their own, Node's errors errno names)", async () => {
    const files = await sources();
    // the warnings' codes: the union of `interface Warning { code: ... }`
    const warningType = files.map((f) => /export interface Warning \{\s*code:([^;]+);/.exec(f.text)?.[1]).find(Boolean);
    expect(warningType).toBeDefined();
    const warnings = new Set([...warningType!.matchAll(/"([A-Z0-9_]+)"/g)].map((m) => m[1]!));
    const given = new Map<string, string>();
    for (const { file, text } of files) {
      for (const m of text.matchAll(/(?:\bcode: |new \w*Error\(\s*|super\(\s*)"([A-Z][A-Z0-9_]+)"/g))
        if (!given.has(m[1]!)) given.set(m[1]!, file);
    }
    expect(given.size).toBeGreaterThan(60);
    const outside = [...given].filter(
      ([code]) => !(code in ERROR_CODES) && !warnings.has(code) && !/^E[A-Z]+$/.test(code),
    );
    expect(outside).toEqual([]);
  });

  it("the command line exits with the code's exit, whatever the class carrying it", () => {
    const cases: [Error, number][] = [
      [new UsageError("bad --month", { code: "MONTH_RUNNING" }), 2],
      [
        new BadFileError("CAPNP_TRUNCATED", "7/2026/10/1/3/account_capnp.bin", "segment 0 declares 212 words, has 98"),
        3,
      ],
      [new BadFileError("FETCH_WRONG_PERIOD", "october.zip", "holds hours of November"), 3],
      [new FetchError("FETCH_HTTP", "HTTP 500", { status: 500 }), 4],
      [new Error("a bug"), 1],
    ];
    for (const [error, exit] of cases) expect(exitCodeFor(error), error.message).toBe(exit);
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[])
      expect(ERROR_CODES[code].meaning.length).toBeGreaterThan(5);
  });
});
