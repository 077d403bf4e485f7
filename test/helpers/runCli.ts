import { execFile } from "node:child_process";
import { join } from "node:path";

/** What one CLI run gave. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

const MAIN = join(import.meta.dirname, "../../src/cli/main.ts");

/**
 * Runs `cloudunits ARGS` from the sources (through tsx) as a user would, with `CI=1` (no
 * progress bar) and no `CLOUDUNITS_*` variable of the caller's environment, plus `env`.
 */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("CLOUDUNITS_")));
  return new Promise((resolve) => {
    execFile(process.execPath, ["--import", "tsx", MAIN, ...args], { env: { ...base, CI: "1", ...env }, maxBuffer: 256 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      });
  });
}
