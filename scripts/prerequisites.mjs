// What the test suite needs beyond `npm ci`, in one list. `scripts/setup.mjs` installs whatever
// of it is missing (`npm run test:all` and .ci/run run it first); the tests that need one of them
// ask here (test/helpers/prerequisites.ts): when it is absent they skip and say how to install
// it, and under CI (CI=true) they fail instead.
//
// To add one: an entry below with `present()`, and either the Debian packages that bring it
// (`apt`) or an `install()` of its own (run after the Debian packages, so it may use them; list
// what it uses in `after`). Nothing here depends on node_modules: setup runs before `npm ci`.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Whether `command args` starts and exits 0. */
function runs(command, args) {
  return spawnSync(command, args, { stdio: "ignore" }).status === 0;
}

/** The Java the tests start: `$JAVA_HOME/bin/java` when JAVA_HOME is set, else `java` on the PATH. */
export function javaCommand() {
  return process.env.JAVA_HOME ? join(process.env.JAVA_HOME, "bin", "java") : "java";
}

/** The feature release of that Java (17 for 17.0.15), or 0 when there is none. */
function javaRelease() {
  const r = spawnSync(javaCommand(), ["-version"], { encoding: "utf8" });
  const version = /version "(\d+)(?:\.(\d+))?/.exec(`${r.stderr ?? ""}${r.stdout ?? ""}`);
  if (r.status !== 0 || !version) return 0;
  return Number(version[1]) === 1 ? Number(version[2]) : Number(version[1]); // "1.8.0" is Java 8
}

/** The pinned Python packages of the Spark tests (pip's requirements format). */
export const SPARK_REQUIREMENTS = join(root, "scripts", "spark-requirements.txt");

/**
 * The Python virtual environment that holds them: `CLOUDUNITS_SPARK_VENV`, else a folder of the
 * user's cache named after the pins (a new pin makes a new environment; every clone shares it).
 */
export function sparkVenv() {
  if (process.env.CLOUDUNITS_SPARK_VENV) return process.env.CLOUDUNITS_SPARK_VENV;
  const pins = createHash("sha256").update(readFileSync(SPARK_REQUIREMENTS)).digest("hex").slice(0, 12);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cloudunits", `pyspark-${pins}`);
}

/** The environment's Python, which imports pyspark. */
export function sparkPython() {
  return join(sparkVenv(), "bin", "python");
}

/** Written into the environment, with the pins, once pip has installed them all. */
const INSTALLED = "cloudunits-installed.txt";

/**
 * @typedef {object} Prerequisite
 * @property {string} name       what the tests ask for
 * @property {string} usedBy     the tests that need it
 * @property {() => boolean} present
 * @property {string[]} [apt]    the Debian packages that bring it
 * @property {() => void} [install]  how it is made when it is not a Debian package
 * @property {string[]} [after]  prerequisites `install` uses
 * @property {string} [manual]   how to get it by hand, where neither of the above says
 */

/** @type {Prerequisite[]} */
export const PREREQUISITES = [
  {
    name: "capnp",
    usedBy: "the decoder's differential and fuzz tests against the reference Cap'n Proto tool",
    apt: ["capnproto"],
    present: () => runs("capnp", ["--version"]),
  },
  {
    name: "chromium",
    usedBy: "the stats page and dashboard tests in a headless browser",
    apt: ["chromium"],
    present: () => existsSync("/usr/bin/chromium"),
  },
  {
    name: "poppler",
    usedBy: "the PDF statements read back (pdftotext, pdfinfo)",
    apt: ["poppler-utils"],
    present: () => runs("pdftotext", ["-v"]) && runs("pdfinfo", ["-v"]),
  },
  {
    name: "java",
    usedBy: "Spark (Java 17 or later)",
    apt: ["openjdk-17-jre-headless"],
    present: () => javaRelease() >= 17,
  },
  {
    name: "python-venv",
    usedBy: "the Python virtual environment of the Spark tests",
    apt: ["python3-venv"],
    present: () => runs("python3", ["-c", "import venv, ensurepip"]),
  },
  {
    name: "pyspark",
    usedBy: "the Spark tests of the Parquet and FOCUS exports (test/export/spark.test.ts)",
    after: ["java", "python-venv"],
    manual: `python3 -m venv DIR && DIR/bin/pip install -r scripts/spark-requirements.txt, with CLOUDUNITS_SPARK_VENV=DIR`,
    present: () => {
      const marker = join(sparkVenv(), INSTALLED);
      return existsSync(marker) && readFileSync(marker, "utf8") === readFileSync(SPARK_REQUIREMENTS, "utf8") && existsSync(sparkPython());
    },
    install: () => {
      const venv = sparkVenv();
      rmSync(venv, { recursive: true, force: true });
      const step = (command, args) => {
        const r = spawnSync(command, args, { stdio: "inherit" });
        if (r.status !== 0) throw new Error(`${command} ${args.join(" ")} failed (exit ${r.status ?? r.signal ?? r.error?.message})`);
      };
      step("python3", ["-m", "venv", venv]);
      step(join(venv, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", SPARK_REQUIREMENTS]);
      writeFileSync(join(venv, INSTALLED), readFileSync(SPARK_REQUIREMENTS, "utf8"));
    },
  },
];

/** The prerequisite named `name`; throws on a name the list does not hold. */
export function prerequisite(name) {
  const found = PREREQUISITES.find((p) => p.name === name);
  if (!found) throw new Error(`no prerequisite "${name}" in scripts/prerequisites.mjs`);
  return found;
}

/** How to install it, in a sentence: what a skipped test prints. */
export function howToInstall(p) {
  const by = p.apt ? `Debian's ${p.apt.join(", ")}` : p.manual;
  return `${p.name} is absent (needed by ${p.usedBy}): \`npm run test:all\` installs it (${by})`;
}

/** Whether tests run under CI, where a missing prerequisite fails instead of skipping. */
export function underCi() {
  const ci = process.env.CI ?? "";
  return ci !== "" && ci !== "0" && ci.toLowerCase() !== "false";
}
