/** Runs documented command lines as a user types them: through bash, `npx cloudunits` being this checkout's CLI. */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CliRun } from "./runCli.js";

const MAIN = join(import.meta.dirname, "../../src/cli/main.ts");
const TSX = import.meta.resolve("tsx");
export const REPO = join(import.meta.dirname, "../..");

/**
 * `npx cloudunits ARGS` runs the sources (through tsx), as `npx` runs the built CLI of an
 * installed checkout; any other `npx` is the real one.
 */
const PRELUDE = `npx() { if [ "$1" = cloudunits ]; then shift; node --import ${JSON.stringify(TSX)} ${JSON.stringify(MAIN)} "$@"; else command npx "$@"; fi; }
cloudunits() { node --import ${JSON.stringify(TSX)} ${JSON.stringify(MAIN)} "$@"; }
`;

/**
 * Runs one shell line in `cwd` with bash, with `CI=1` (no progress bar), no `CLOUDUNITS_*`
 * variable of the caller's environment, plus `env`.
 */
export function runShell(line: string, cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("CLOUDUNITS_")));
  return new Promise((resolve) => {
    execFile("bash", ["-c", `${PRELUDE}${line}`], { cwd, env: { ...base, CI: "1", ...env }, maxBuffer: 256 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The text of a markdown file of the repository, read now (so the tests follow it as it is). */
export function readDoc(name: string): string {
  return readFileSync(join(REPO, name), "utf8");
}

/** The part of a markdown text from the heading matching `start` to the next heading of the same level. */
export function section(markdown: string, start: RegExp): string {
  const lines = markdown.split("\n");
  const from = lines.findIndex((l) => start.test(l));
  if (from < 0) throw new Error(`no heading ${start}`);
  const level = /^#+/.exec(lines[from]!)![0].length;
  const to = lines.findIndex((l, i) => i > from && new RegExp(`^#{1,${level}} `).test(l));
  return lines.slice(from, to < 0 ? undefined : to).join("\n");
}

/** The code blocks of a markdown text fenced with ```lang (``` alone when lang is ""), in order. */
export function codeBlocks(markdown: string, lang: string): string[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].filter((m) => m[1] === lang).map((m) => m[2]!);
}
