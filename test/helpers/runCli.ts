import { execFile } from "node:child_process";
import { join } from "node:path";
import { inject } from "vitest";

/** What one CLI run gave. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The entry of `cloudunits` as built from the sources for this test run (test/globalSetup.ts):
 * `node CLI ARGS` runs the tool as a user would. Every test that spawns the tool spawns this.
 */
export const CLI = join(inject("cliBuild"), "dist/cli/main.js");

/** The library's entry (what `import "cloudunits"` loads) in the same build. */
export const LIBRARY = join(inject("cliBuild"), "dist/index.js");

/** The built module of a source file in the same build: `builtModule("store/schema.ts")` for src/store/schema.ts. */
export const builtModule = (source: string): string => join(inject("cliBuild"), "dist", source.replace(/\.ts$/, ".js"));

/**
 * Runs `cloudunits ARGS` (the build of the current sources, `CLI`) as a user would, with `CI=1` (no
 * progress bar) and no `CLOUDUNITS_*` variable of the caller's environment, plus `env`.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("CLOUDUNITS_")));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { env: { ...base, CI: "1", ...env }, maxBuffer: 256 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
