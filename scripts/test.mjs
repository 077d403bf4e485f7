// `npm test`: the type check (`tsc --noEmit`, over src/ and test/) and the test suite (`vitest
// run`, with any arguments given) at once, rather than one after the other: the suite keeps both
// cores only about 1.8 busy (its files wait on the processes, servers and databases they start),
// and the type check fills the rest. The suite's output streams as it comes; the type check's
// follows it. Exits 0 only when both passed.
//
//   node scripts/test.mjs [vitest arguments...]
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const resolve = createRequire(import.meta.url).resolve;

/** Runs `node script args` in the repository; resolves to its exit code (1 when killed by a signal), with its output when captured. */
function run(script, args, capture) {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: capture ? ["ignore", "pipe", "pipe"] : "inherit" });
    let output = "";
    if (capture) for (const stream of [child.stdout, child.stderr]) stream.on("data", (data) => { output += data; });
    child.on("error", fail);
    child.on("close", (code) => done({ code: code ?? 1, output }));
  });
}

const typecheck = run(resolve("typescript/bin/tsc"), ["--noEmit", "-p", root], true);
const suite = await run(join(dirname(resolve("vitest/package.json")), "vitest.mjs"), ["run", ...process.argv.slice(2)], false);
const types = await typecheck;
process.stdout.write(types.code === 0 ? "\ntsc --noEmit: no type errors\n" : `\ntsc --noEmit: type errors\n${types.output}`);
process.exit(suite.code !== 0 ? suite.code : types.code);
