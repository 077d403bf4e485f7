// Once per test run, before any test file: builds the command-line tool the tests spawn
// (test/helpers/buildCli.ts) and tells the test files where it is (`inject("cliBuild")`).
// In watch mode it builds again before every rerun, so a spawned tool is never older than src/.
import { rm } from "node:fs/promises";
import type { TestProject } from "vitest/node";
import { buildCli } from "./helpers/buildCli.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The folder of the tool built for this run: `dist/cli/main.js` in it is `cloudunits`. */
    cliBuild: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await buildCli();
  project.provide("cliBuild", root);
  project.onTestsRerun(async () => {
    await buildCli(root);
  });
  return async () => {
    await rm(root, { recursive: true, force: true });
  };
}
