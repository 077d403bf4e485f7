import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/shellExamples.js";

// The repository stands on its own: no file it tracks reads or cites a document outside it
// (the team's contract lived in a sibling folder that users never have). The words are built
// here so that this file does not match itself.
const OUTSIDE = [["..", "shared"].join("/"), ["S", "PEC"].join("")];

describe("the repository", () => {
  it("has no tracked file that reads or cites a document outside it (sources, tests, docs, README, help texts)", () => {
    const files = execFileSync("git", ["ls-files", "-z"], { cwd: REPO, encoding: "utf8" })
      .split("\0")
      .filter((f) => f !== "");
    const text = files.filter(
      (f) => /\.(ts|mts|mjs|cjs|js|json|md|sql|yaml|yml|capnp)$|^\.ci\//.test(f) && f !== "package-lock.json",
    );
    expect(text.length).toBeGreaterThan(100);
    const found = text.flatMap((file) => {
      const lines = readFileSync(join(REPO, file), "utf8").split("\n");
      return lines.flatMap((line, i) =>
        OUTSIDE.some((word) => new RegExp(`\\b${word.replace(/[./]/g, "\\$&")}\\b`).test(line))
          ? [`${file}:${i + 1}: ${line.trim()}`]
          : [],
      );
    });
    expect(found).toEqual([]);
  });
});
