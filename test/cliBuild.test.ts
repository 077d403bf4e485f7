import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { builtFrom, REPO, sourceHashes } from "./helpers/buildCli.js";
import { CLI, runCli } from "./helpers/runCli.js";

describe("the tool the tests spawn is built from the current sources", () => {
  it("was built from every source file as it is now, and from nothing else", async () => {
    expect(await builtFrom(inject("cliBuild"))).toEqual(await sourceHashes());
  });

  it("has one module for every source file, and runs as cloudunits", async () => {
    const built = inject("cliBuild");
    const missing = Object.keys(await builtFrom(built)).filter(
      (file) => !existsSync(join(built, "dist", file.replace(/\.ts$/, ".js"))),
    );
    expect(missing).toEqual([]);
    expect(CLI).toBe(join(built, "dist/cli/main.js"));
    const { version } = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as { version: string };
    expect(await runCli(["--version"])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});
