// Preloaded into a CLI run (NODE_OPTIONS=--import) by tests that bound its memory: prints the
// process's peak resident set, worker threads included, as `maxRSS <kilobytes>` on stderr at exit.
import { writeSync } from "node:fs";
import { isMainThread } from "node:worker_threads";

if (isMainThread) process.on("exit", () => writeSync(2, `maxRSS ${process.resourceUsage().maxRSS}\n`));
