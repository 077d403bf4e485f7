import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { PREREQUISITES } from "../scripts/prerequisites.mjs";
import { has, needs } from "./helpers/prerequisites.js";

const ROOT = join(import.meta.dirname, "..");
const empty = mkdtempSync(join(tmpdir(), "cloudunits-prerequisites-"));
afterAll(() => rmSync(empty, { recursive: true, force: true }));
afterEach(() => {
  vi.unstubAllEnvs();
});

/** scripts/setup.mjs on a machine where nothing is found: no program on the PATH, an empty Spark environment, no JAVA_HOME. */
function setupWithNothing(ci: string) {
  const env: Record<string, string> = { PATH: empty, HOME: empty, CLOUDUNITS_SPARK_VENV: join(empty, "venv"), CI: ci };
  return spawnSync(process.execPath, [join(ROOT, "scripts/setup.mjs")], { env, encoding: "utf8" });
}

describe("what the suite needs beyond npm ci (scripts/prerequisites.mjs)", () => {
  it("the README's test command sets it up before the suite, and CI runs that command in a fresh clone", () => {
    const scripts = (
      JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts["test:all"]).toBe("node scripts/setup.mjs && node scripts/test.mjs");
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toMatch(/^npm run test:all +# /m);
    const ci = readFileSync(join(ROOT, ".ci/run"), "utf8")
      .split("\n")
      .filter((l) => !l.startsWith("#"));
    expect(ci.filter((l) => /^\s*npm /.test(l))).toEqual([
      "  npm ci --no-audit --no-fund",
      "  npm run test:all",
      "npm ci --no-audit --no-fund",
      "npm run test:all",
    ]);
  });

  it("lists each by a name, what needs it, a check, and a way to install it", () => {
    expect(PREREQUISITES.map((p) => p.name)).toEqual([
      "capnp",
      "chromium",
      "faketime",
      "poppler",
      "java",
      "python-venv",
      "pyspark",
      "saxon",
      "maven",
      "einvoice-rules",
    ]);
    for (const p of PREREQUISITES)
      expect(p.apt !== undefined || (p.install !== undefined && p.manual !== undefined), p.name).toBe(true);
  });

  it("under CI, setup that cannot install what is missing fails and names each one with how to get it", () => {
    const run = setupWithNothing("true");
    expect(run.status, run.stderr).toBe(1);
    expect(run.stderr).toContain(
      "capnp is missing (the decoder's differential and fuzz tests against the reference Cap'n Proto tool): as root: apt-get install capnproto",
    );
    expect(run.stderr).toContain(
      "poppler is missing (the PDF statements read back (pdftotext, pdfinfo)): as root: apt-get install poppler-utils",
    );
    expect(run.stderr).toMatch(/pyspark is missing \(.*\): needs java, python-venv first/);
    expect(run.stderr).toContain("CI=true: the suite must run every test, so setup fails");
  });

  it("locally, setup goes on: the tests that need what is missing will say so", () => {
    const run = setupWithNothing("");
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("capnp is missing");
    expect(run.stderr).toContain("the tests that need it will be skipped, each saying what is missing");
  });

  it("a test's check of something absent: false locally, a failure under CI that says how to install it", () => {
    vi.stubEnv("PATH", empty);
    vi.stubEnv("CI", "");
    expect(has("capnp")).toBe(false);
    expect(needs("capnp")).toBe(false);
    vi.stubEnv("CI", "true");
    expect(() => needs("capnp")).toThrow(
      "CI=true: capnp is absent (needed by the decoder's differential and fuzz tests against the reference Cap'n Proto tool): `npm run test:all` installs it (Debian's capnproto)",
    );
  });
});
