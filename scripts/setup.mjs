// Installs what the test suite needs beyond `npm ci` (scripts/prerequisites.mjs lists it): the
// missing Debian packages in one apt-get (as root, or through `sudo -n`), then what is made
// otherwise (the pinned pyspark in its Python virtual environment). `npm run test:all` runs it
// before the suite, and .ci/run the same way.
//
// What cannot be installed here (not root and no sudo, no apt-get, a failed install) is listed
// with how to get it. Locally the suite then runs without it, each test that needs it skipped
// and saying so; under CI (CI=true) setup fails, as would the tests.
//
//   node scripts/setup.mjs           (exit 1 only under CI with something missing)
import { spawnSync } from "node:child_process";
import { PREREQUISITES, underCi } from "./prerequisites.mjs";

const say = (line) => process.stderr.write(`setup: ${line}\n`);

/** How apt-get runs here: as root, through a sudo that asks no password, or not at all. */
function aptRunner() {
  if (spawnSync("apt-get", ["--version"], { stdio: "ignore" }).status !== 0) return undefined;
  if (process.getuid?.() === 0) return [];
  if (spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0) return ["sudo", "-n"];
  return undefined;
}

/** Runs apt-get with `args` (quiet, no questions); true when it succeeded. */
function aptGet(runner, args) {
  const [command, ...prefix] = [...runner, "apt-get"];
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  return spawnSync(command, [...prefix, ...args], { stdio: ["ignore", "ignore", "inherit"], env }).status === 0;
}

const missing = PREREQUISITES.filter((p) => !p.present());
const failed = new Map();

const packages = missing.flatMap((p) => p.apt ?? []);
if (packages.length > 0) {
  const runner = aptRunner();
  if (!runner) {
    for (const p of missing.filter((m) => m.apt)) failed.set(p.name, `as root: apt-get install ${p.apt.join(" ")}`);
  } else {
    say(`installing Debian's ${packages.join(", ")}`);
    if (
      !aptGet(runner, ["update", "-qq"]) ||
      !aptGet(runner, ["install", "-y", "-qq", "--no-install-recommends", ...packages])
    ) {
      for (const p of missing.filter((m) => m.apt)) failed.set(p.name, `apt-get install ${p.apt.join(" ")} failed`);
    }
  }
}

for (const p of missing.filter((m) => m.install)) {
  const blocked = (p.after ?? []).filter((name) => failed.has(name));
  if (blocked.length > 0) {
    failed.set(p.name, `needs ${blocked.join(", ")} first`);
    continue;
  }
  say(`installing ${p.name} (${p.usedBy})`);
  try {
    p.install();
  } catch (error) {
    failed.set(p.name, `${error.message}; by hand: ${p.manual}`);
  }
}

for (const p of missing) {
  if (!failed.has(p.name) && !p.present())
    failed.set(
      p.name,
      `still absent after installing it; by hand: ${p.apt ? `apt-get install ${p.apt.join(" ")}` : p.manual}`,
    );
}
for (const [name, why] of failed)
  say(`${name} is missing (${PREREQUISITES.find((p) => p.name === name).usedBy}): ${why}`);
if (failed.size === 0) say(`ready: ${PREREQUISITES.map((p) => p.name).join(", ")}`);
else if (underCi()) {
  say("CI=true: the suite must run every test, so setup fails");
  process.exit(1);
} else say("the tests that need it will be skipped, each saying what is missing");
