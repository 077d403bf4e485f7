import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * Test files that change what other files would see of a module or of the process: they mock
 * a module, spy on or stub a global, fake the timers, or register a unit in the catalog. Each
 * runs in a fresh process of its own. The other files share their worker's process one after
 * another, and so the modules it has loaded: importing src/ again for every file was about
 * half of the CPU time of the in-process tests. Running the tool's commands in the test's process
 * (test/helpers/inProcessCli.ts) takes over stdout and stderr only for the run: it shares.
 */
const CHANGES_SHARED_STATE = /\bvi\.(mock|doMock|spyOn|stub\w*|useFakeTimers)\(|\bregisterUnit\(/;
const root = fileURLToPath(new URL(".", import.meta.url));
const isolated = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => join(root, "test", file))
  .filter((file) => CHANGES_SHARED_STATE.test(readFileSync(file, "utf8")))
  .map((file) => relative(root, file));

export default defineConfig({
  test: {
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two test files at once even on 2 cores (vitest's default there is one: cores − 1): much of
    // a file's time is spent waiting on the processes, servers and databases it starts. Files
    // share no temporary path and no port (each makes its own folder and listens on port 0).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: isolated, isolate: false } },
      { extends: true, test: { name: "isolated", include: isolated } },
    ],
  },
});
