/** Runs documented command lines as a user types them: through bash, `npx cloudunits` being this checkout's CLI. */
import { execFile, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CLI, type CliRun } from "./runCli.js";

export const REPO = join(import.meta.dirname, "../..");

/**
 * `npx cloudunits ARGS` and `cloudunits ARGS` run the tool built from the current sources
 * (`CLI`), as `npx` runs the built tool of an installed checkout; any other `npx` is the real one.
 */
const PRELUDE = `npx() { if [ "$1" = cloudunits ]; then shift; node ${JSON.stringify(CLI)} "$@"; else command npx "$@"; fi; }
cloudunits() { node ${JSON.stringify(CLI)} "$@"; }
`;

/**
 * Runs one shell line in `cwd` with bash, with `CI=1` (no progress bar), no `CLOUDUNITS_*`
 * variable of the caller's environment, plus `env`.
 */
export function runShell(line: string, cwd: string, env: Record<string, string> = {}): Promise<CliRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("CLOUDUNITS_")));
  return new Promise((resolve) => {
    execFile(
      "bash",
      ["-c", `${PRELUDE}${line}`],
      { cwd, env: { ...base, CI: "1", ...env }, maxBuffer: 256 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Whether a documented line starts a long-running command (`serve`): it runs until stopped. */
export const isServing = (line: string): boolean => /^(npx )?cloudunits serve\b/.test(line.trim());

/**
 * Runs a long-running command line (`cloudunits serve ...`) as `runShell` does, waits for the
 * address it prints, asks it for `/` and stops it with Ctrl-C (SIGINT to its process group):
 * the run, with `page` the status and text of `/`.
 */
export function runServing(
  line: string,
  cwd: string,
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<CliRun & { page?: { status: number; text: string } }> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("CLOUDUNITS_")));
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", `${PRELUDE}${line}`], {
      cwd,
      env: { ...base, CI: "1", ...env },
      detached: true,
    });
    let stdout = "";
    let stderr = "";
    let page: { status: number; text: string } | undefined;
    let asked = false;
    const stop = () => {
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(stop, timeoutMs);
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
    });
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      const url = /(http:\/\/\S+\/)/.exec(stdout)?.[1];
      if (url && !asked) {
        asked = true;
        fetch(url)
          .then(
            async (r) => {
              page = { status: r.status, text: await r.text() };
            },
            (e: unknown) => {
              page = { status: -1, text: String(e) };
            },
          )
          .finally(stop);
      }
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout, stderr, page });
    });
  });
}

/** The text of a markdown file of the repository, read now (so the tests follow it as it is). */
export function readDoc(name: string): string {
  return readFileSync(join(REPO, name), "utf8");
}

/** The part of a markdown text from the heading matching `start` to the next heading of the same level (a `#` line inside a fenced block is no heading). */
export function section(markdown: string, start: RegExp): string {
  const lines = markdown.split("\n");
  let fenced = false;
  const inFence = lines.map((l) => {
    if (l.startsWith("```")) fenced = !fenced;
    return fenced;
  });
  const from = lines.findIndex((l, i) => !inFence[i] && start.test(l));
  if (from < 0) throw new Error(`no heading ${start}`);
  const level = /^#+/.exec(lines[from]!)![0].length;
  const to = lines.findIndex((l, i) => i > from && !inFence[i] && new RegExp(`^#{1,${level}} `).test(l));
  return lines.slice(from, to < 0 ? undefined : to).join("\n");
}

/** Every fenced code block of a markdown text, in order, with its language ("" for ``` alone). */
export function fencedBlocks(markdown: string): { lang: string; text: string }[] {
  return [...markdown.matchAll(/^```(\w*)\n([\s\S]*?)^```/gm)].map((m) => ({ lang: m[1]!, text: m[2]! }));
}

/** The code blocks of a markdown text fenced with ```lang (``` alone when lang is ""), in order. */
export function codeBlocks(markdown: string, lang: string): string[] {
  return fencedBlocks(markdown)
    .filter((b) => b.lang === lang)
    .map((b) => b.text);
}

/**
 * The files a markdown text shows in full: each ```yaml block whose first line is a comment naming
 * it (`# statement.yaml`), by that name, its text as shown.
 */
export function shownFiles(markdown: string): Record<string, string> {
  return Object.fromEntries(
    codeBlocks(markdown, "yaml").flatMap((text) => {
      const name = /^# ([\w.-]+\.(?:yaml|yml|json))\n/.exec(text)?.[1];
      return name ? [[name, text]] : [];
    }),
  );
}

/**
 * A documented recipe as steps, in order: each ``` block's command lines (blank lines dropped),
 * and the ```text block right after it, when there is one: what its last command prints.
 */
export function recipeSteps(markdown: string): { lines: string[]; prints?: string }[] {
  const steps: { lines: string[]; prints?: string }[] = [];
  for (const block of fencedBlocks(markdown)) {
    if (block.lang === "") steps.push({ lines: block.text.split("\n").filter((l) => l.trim() !== "") });
    else if (block.lang === "text" && steps.length > 0 && steps.at(-1)!.prints === undefined)
      steps.at(-1)!.prints = block.text;
  }
  return steps;
}

/** The jobs of a crontab (its fenced ```crontab blocks): `NAME=value` lines and `m h dom mon dow command` lines, `\\%` given to the shell as `%`, as cron does. */
export function crontabOf(markdown: string): {
  env: Record<string, string>;
  jobs: { schedule: string; command: string }[];
} {
  const env: Record<string, string> = {};
  const jobs: { schedule: string; command: string }[] = [];
  for (const line of codeBlocks(markdown, "crontab")
    .flatMap((block) => block.split("\n"))
    .map((l) => l.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    const variable = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (variable) {
      env[variable[1]!] = variable[2]!;
      continue;
    }
    const job = /^((?:\S+\s+){4}\S+)\s+(.*)$/.exec(line);
    if (!job) throw new Error(`not a crontab line: ${line}`);
    jobs.push({ schedule: job[1]!.replace(/\s+/g, " "), command: job[2]!.replaceAll("\\%", "%") });
  }
  return { env, jobs };
}

/**
 * Runs a crontab command as cron does: `/bin/sh -c COMMAND` in `cwd` (cron starts in the user's
 * home; the recipe's lines `cd` first), with only `env` (cron's environment is the crontab's
 * variables, not a login shell's) and `CI=1`.
 */
/**
 * The variables of Debian's faketime that this process runs under, if any: a run of the suite at
 * another date (scripts/test.mjs) keeps them for the commands it starts as cron would, whose
 * environment is otherwise bare, so that `date` in a crontab line and the tool see the same day.
 */
function fakedClock(): Record<string, string> {
  const keep = ["LD_PRELOAD", "FAKETIME", "FAKETIME_NO_CACHE", "FAKETIME_DONT_RESET", "DONT_FAKE_MONOTONIC"];
  return Object.fromEntries(keep.flatMap((key) => (process.env[key] === undefined ? [] : [[key, process.env[key]!]])));
}

export function runAsCron(command: string, cwd: string, env: Record<string, string>): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      "/bin/sh",
      ["-c", command],
      { cwd, env: { HOME: cwd, SHELL: "/bin/sh", CI: "1", ...fakedClock(), ...env }, maxBuffer: 256 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
