// `npm test`: the format check (Prettier, line width 120, `.prettierrc.json`; `npx prettier --write .`
// fixes what it names), the type check (`tsc --noEmit`, over src/ and test/) and the test suite (`vitest
// run`, with any arguments given) at once, rather than one after the other: the suite keeps both
// cores only about 1.8 busy (its files wait on the processes, servers and databases they start),
// and the type check fills the rest. The suite's output streams as it comes; the type check's
// follows it.
//
// Then, when no arguments were given, the date-sensitive test files (DATE_SENSITIVE: the README,
// the invoices, sync, status and alerts) run again at other dates under Debian's faketime
// (OTHER_DATES: a year's turn and the first of March), so that a test that holds only in the
// month it was written fails here and not on a later day. Without faketime they are skipped with
// how to install it, except under CI (CI=true), where that fails the run. Exits 0 only when all passed.
//
//   node scripts/test.mjs [vitest arguments...]
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { howToInstall, prerequisite, underCi } from "./prerequisites.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const resolve = createRequire(import.meta.url).resolve;
const vitest = join(dirname(resolve("vitest/package.json")), "vitest.mjs");

/** The test files whose outcome could depend on the day they run: each decides by "now" (or runs what does). */
const DATE_SENSITIVE = [
  "test/readme.test.ts",
  "test/cliReference.test.ts",
  "test/invoices/",
  "test/sync/",
  "test/forecast/alerts.test.ts",
  "test/forecast/forecast.test.ts",
];

/** The other dates they run at (faketime's format, UTC): the morning of a year's turn, and just after a February's end. */
const OTHER_DATES = ["2027-01-02 06:00:00", "2027-03-01 00:30:00"];

/** Runs `command args` in the repository; resolves to its exit code (1 when killed by a signal), with its output when captured. */
function run(command, args, { capture = false, env = process.env } = {}) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { cwd: root, env, stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (capture)
      for (const stream of [child.stdout, child.stderr])
        stream.on("data", (data) => {
          output += data;
        });
    child.on("error", fail);
    child.on("close", (code) => done({ code: code ?? 1, output }));
  });
}

const args = process.argv.slice(2);
const typecheck = run(process.execPath, [resolve("typescript/bin/tsc"), "--noEmit", "-p", root], { capture: true });
const formatting = run(
  process.execPath,
  [resolve("prettier/bin/prettier.cjs"), "--check", "--log-level", "warn", "."],
  { capture: true },
);
const suite = await run(process.execPath, [vitest, "run", ...args]);
const format = await formatting;
process.stdout.write(
  format.code === 0
    ? "\nprettier --check: formatted\n"
    : `\nprettier --check: not formatted (npx prettier --write . formats them)\n${format.output}`,
);
const types = await typecheck;
process.stdout.write(
  types.code === 0 ? "\ntsc --noEmit: no type errors\n" : `\ntsc --noEmit: type errors\n${types.output}`,
);

let dates = 0;
if (args.length === 0) {
  const faketime = prerequisite("faketime");
  if (!faketime.present()) {
    process.stdout.write(`\ndate runs: ${underCi() ? "failed" : "skipped"}: ${howToInstall(faketime)}\n`);
    if (underCi()) dates = 1;
  } else {
    for (const date of OTHER_DATES) {
      process.stdout.write(`\ndate run: the date-sensitive tests at ${date} UTC (faketime)\n`);
      const env = { ...process.env, TZ: "UTC" };
      const { code } = await run("faketime", [date, process.execPath, vitest, "run", ...DATE_SENSITIVE], { env });
      process.stdout.write(`date run at ${date}: ${code === 0 ? "passed" : "failed"}\n`);
      if (code !== 0) dates = code;
    }
  }
}
process.exit(suite.code !== 0 ? suite.code : types.code !== 0 ? types.code : format.code !== 0 ? format.code : dates);
