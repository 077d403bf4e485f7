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
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
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

/** Debian's Saxon-HE (libsaxonhe-java), which runs the official e-invoice rules, compiled to XSLT. */
export const SAXON_JAR = "/usr/share/java/Saxon-HE.jar";

/**
 * The release of the official rules a Peppol access point applies to a UBL invoice: OpenPeppol's
 * BIS Billing 3.0.21 (its 2026.5 release, mandatory since 17 August 2026), as Maven Central's
 * phive-rules-peppol carries it compiled to XSLT, with the EN 16931 UBL rules (1.3.16) it ships
 * beside its own. Moving to the next release is this one entry: its artifact, folder and the
 * SHA-256 of its two files (a wrong hash stops the install, naming the file's own).
 */
export const EINVOICE_RULES_RELEASE = {
  bis: "3.0.21",
  artifact: "com.helger.phive.rules:phive-rules-peppol:4.3.7",
  folder: "external/schematron/openpeppol/2026.5/xslt",
  sha256: {
    "EN16931-UBL": "a8a54aef3699057a3820cd2ebcac8ea3c364a6ebaf4a237e62064a5bc2877c4a",
    "PEPPOL-EN16931-UBL": "8c6b935b1bc0bb17d29d949b0aa27ecc62021b613b9fba173cd6bfec6b3f0008",
  },
};

/** The two rule sets of that release, each by name, where it is in the artifact, and its SHA-256. */
export const EINVOICE_RULES = [
  { name: "EN16931-UBL", file: "CEN-EN16931-UBL.xslt" },
  { name: "PEPPOL-EN16931-UBL", file: "PEPPOL-EN16931-UBL.xslt" },
].map(({ name, file }) => ({
  name,
  artifact: EINVOICE_RULES_RELEASE.artifact,
  path: `${EINVOICE_RULES_RELEASE.folder}/${file}`,
  sha256: EINVOICE_RULES_RELEASE.sha256[name],
}));

/** Where the rules are kept once fetched: `CLOUDUNITS_EINVOICE_RULES`, else a folder of the user's cache named after the pins. */
export function einvoiceRulesDir() {
  if (process.env.CLOUDUNITS_EINVOICE_RULES) return process.env.CLOUDUNITS_EINVOICE_RULES;
  const pins = createHash("sha256")
    .update(EINVOICE_RULES.map((r) => r.sha256).join())
    .digest("hex")
    .slice(0, 12);
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "cloudunits", `einvoice-rules-${pins}`);
}

/** The file of a rule set in that folder. */
export function einvoiceRulesFile(name) {
  return join(einvoiceRulesDir(), `${name}.xslt`);
}

const sha256Of = (file) => createHash("sha256").update(readFileSync(file)).digest("hex");

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
    name: "faketime",
    usedBy: "the date-sensitive tests run again at a year's turn and on 1 March (scripts/test.mjs)",
    apt: ["faketime"],
    present: () => runs("faketime", ["2027-01-02 06:00:00", "true"]),
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
      return (
        existsSync(marker) &&
        readFileSync(marker, "utf8") === readFileSync(SPARK_REQUIREMENTS, "utf8") &&
        existsSync(sparkPython())
      );
    },
    install: () => {
      const venv = sparkVenv();
      rmSync(venv, { recursive: true, force: true });
      const step = (command, args) => {
        const r = spawnSync(command, args, { stdio: "inherit" });
        if (r.status !== 0)
          throw new Error(`${command} ${args.join(" ")} failed (exit ${r.status ?? r.signal ?? r.error?.message})`);
      };
      step("python3", ["-m", "venv", venv]);
      step(join(venv, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", "-r", SPARK_REQUIREMENTS]);
      writeFileSync(join(venv, INSTALLED), readFileSync(SPARK_REQUIREMENTS, "utf8"));
    },
  },
  {
    name: "saxon",
    usedBy:
      "the e-invoices checked against the official EN 16931 and Peppol BIS 3.0 rules (test/export/ubl/officialRules.test.ts)",
    apt: ["libsaxonhe-java"],
    present: () => existsSync(SAXON_JAR),
  },
  {
    name: "maven",
    usedBy: "fetching the official e-invoice rules from Maven Central",
    apt: ["maven"],
    present: () => runs("mvn", ["-v"]),
  },
  {
    name: "einvoice-rules",
    usedBy:
      "the e-invoices checked against the official EN 16931 and Peppol BIS 3.0 rules (test/export/ubl/officialRules.test.ts)",
    after: ["maven"],
    manual: `the files ${EINVOICE_RULES.map((r) => `${r.path} of ${r.artifact}`).join(" and ")} as <name>.xslt in a folder named by CLOUDUNITS_EINVOICE_RULES`,
    present: () =>
      EINVOICE_RULES.every(
        (r) => existsSync(einvoiceRulesFile(r.name)) && sha256Of(einvoiceRulesFile(r.name)) === r.sha256,
      ),
    install: () => {
      const dir = einvoiceRulesDir();
      mkdirSync(dir, { recursive: true });
      for (const rules of EINVOICE_RULES) {
        const unpacked = mkdtempSync(join(tmpdir(), "cloudunits-rules-"));
        try {
          const r = spawnSync(
            "mvn",
            [
              "-q",
              "-B",
              "org.apache.maven.plugins:maven-dependency-plugin:3.6.1:unpack",
              `-Dartifact=${rules.artifact}`,
              `-DoutputDirectory=${unpacked}`,
              `-Dmdep.unpack.includes=${rules.path}`,
              `-DmarkersDirectory=${join(unpacked, ".markers")}`,
            ],
            { encoding: "utf8", cwd: unpacked },
          );
          if (r.status !== 0)
            throw new Error(
              `mvn could not unpack ${rules.path} from ${rules.artifact} (exit ${r.status ?? r.signal}): ${r.stdout}${r.stderr}`,
            );
          const file = join(unpacked, rules.path);
          if (sha256Of(file) !== rules.sha256)
            throw new Error(`${rules.path} of ${rules.artifact} is not the pinned file (SHA-256 ${sha256Of(file)})`);
          copyFileSync(file, einvoiceRulesFile(rules.name));
        } finally {
          rmSync(unpacked, { recursive: true, force: true });
        }
      }
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
