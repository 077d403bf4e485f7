import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/globalSetup.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Two test files at once even on 2 cores (vitest's default there is one: cores − 1): much of
    // a file's time is spent waiting on the processes, servers and databases it starts. Files
    // share no temporary path and no port (each makes its own folder and listens on port 0).
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
});
