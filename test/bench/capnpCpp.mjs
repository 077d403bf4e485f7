// The C++ reference of the billing bench (capnpCppBilling.cpp), built at bench time into a
// temporary folder: the schema's code from `capnp compile -oc++`, compiled with g++ -O2 against
// the Cap'n Proto library (Debian/Ubuntu: `apt-get install capnproto libcapnp-dev g++`).
import { spawnSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const schema = join(here, "../../schema/resourcemonitoring.capnp");

/**
 * Builds the C++ reference into `dir`: `{ bin }`, or `{ missing }` saying what this machine
 * lacks to build it (the bench then skips the comparison and says so).
 */
export function buildCapnpCpp(dir) {
  const step = (command, args, what) => {
    const r = spawnSync(command, args, { cwd: dir, encoding: "utf8" });
    if (r.error?.code === "ENOENT") return `${command} not found (${what})`;
    if (r.status !== 0)
      return `${command} failed (${what}): ${(r.stderr || r.stdout).trim().split("\n").slice(0, 3).join(" ")}`;
    return undefined;
  };
  copyFileSync(schema, join(dir, "resourcemonitoring.capnp"));
  copyFileSync(join(here, "capnpCppBilling.cpp"), join(dir, "capnpCppBilling.cpp"));
  const missing =
    step("/usr/bin/time", ["true"], "GNU time, which measures its CPU and peak") ??
    step("capnp", ["compile", "-oc++", "resourcemonitoring.capnp"], "the capnproto package") ??
    step(
      "g++",
      [
        "-O2",
        "-std=c++17",
        "-o",
        "capnpCppBilling",
        "capnpCppBilling.cpp",
        "resourcemonitoring.capnp.c++",
        "-lcapnp",
        "-lkj",
      ],
      "g++ and libcapnp-dev",
    );
  return missing === undefined ? { bin: join(dir, "capnpCppBilling") } : { missing };
}
