// The C++ reference of the billing bench (capnpCppBilling.cpp), built at bench time into a
// temporary folder: the schema's code from `capnp compile -oc++`, compiled with g++ -O2 against
// the Cap'n Proto library. Where the library's headers or the `capnp` tool are not installed
// (`apt-get install capnproto libcapnp-dev g++` needs root), the bench fetches the Debian
// packages itself without root (`apt-get download`, unpacked with `dpkg-deb -x` into the temp
// folder, kept there between runs) and links the library statically. Bench only: no test needs it.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const schema = join(here, "../../schema/resourcemonitoring.capnp");
const fetched = join(tmpdir(), "cloudunits-bench-libcapnp");

/** Runs `command`: undefined when it succeeded, else what failed (`what`: what it needs). */
function step(command, args, what, options = {}) {
  const r = spawnSync(command, args, { encoding: "utf8", ...options });
  if (r.error?.code === "ENOENT") return `${command} not found (${what})`;
  if (r.status !== 0)
    return `${command} failed (${what}): ${(r.stderr || r.stdout).trim().split("\n").slice(0, 3).join(" ")}`;
  return undefined;
}

/** Whether the Cap'n Proto headers and the `capnp` tool are installed. */
const installed = () => existsSync("/usr/include/capnp/message.h") && step("capnp", ["--version"], "") === undefined;

/**
 * The Debian packages of the library (headers, static libraries, the `capnp` tool and its
 * shared library), downloaded and unpacked once into the temp folder: `{ root }` (the unpacked
 * `usr`), or `{ missing }`.
 */
function fetchLibcapnp() {
  const usr = join(fetched, "root/usr");
  if (existsSync(join(usr, "include/capnp/message.h"))) return { root: usr };
  const partial = `${fetched}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial, { recursive: true });
  const show = spawnSync("apt-cache", ["show", "libcapnp-dev"], { encoding: "utf8" });
  const runtime = /^Depends:.*?\b(libcapnp-[0-9.]+)\b/m.exec(show.stdout ?? "")?.[1];
  if (runtime === undefined) return { missing: "libcapnp-dev not installed, and apt-cache knows no such package" };
  const missing =
    step("apt-get", ["download", "libcapnp-dev", "capnproto", runtime], "Debian's packages", { cwd: partial }) ??
    readdirSync(partial)
      .filter((f) => f.endsWith(".deb"))
      .reduce((m, deb) => m ?? step("dpkg-deb", ["-x", deb, "root"], "unpacking " + deb, { cwd: partial }), undefined);
  if (missing !== undefined) return { missing };
  rmSync(fetched, { recursive: true, force: true });
  renameSync(partial, fetched);
  return { root: usr };
}

/**
 * Builds the C++ reference into `dir`: `{ bin }`, or `{ missing }` saying what this machine
 * lacks to build it (the bench then skips the comparison and says so).
 */
export function buildCapnpCpp(dir) {
  copyFileSync(schema, join(dir, "resourcemonitoring.capnp"));
  copyFileSync(join(here, "capnpCppBilling.cpp"), join(dir, "capnpCppBilling.cpp"));
  const gnuTime = step("/usr/bin/time", ["true"], "GNU time, which measures its CPU and peak");
  if (gnuTime !== undefined) return { missing: gnuTime };
  const cpp = ["-O2", "-std=c++17", "-o", "capnpCppBilling", "capnpCppBilling.cpp", "resourcemonitoring.capnp.c++"];
  let missing;
  if (installed()) {
    missing =
      step("capnp", ["compile", "-oc++", "resourcemonitoring.capnp"], "the capnproto package", { cwd: dir }) ??
      step("g++", [...cpp, "-lcapnp", "-lkj"], "g++ and libcapnp-dev", { cwd: dir });
  } else {
    const lib = fetchLibcapnp();
    if (lib.missing !== undefined) return lib;
    const libDir = join(lib.root, "lib/x86_64-linux-gnu");
    // the fetched tool runs on its own shared library; its C++ plugin is found on PATH
    const env = {
      ...process.env,
      PATH: `${join(lib.root, "bin")}:${process.env.PATH}`,
      LD_LIBRARY_PATH: `${libDir}:${process.env.LD_LIBRARY_PATH ?? ""}`,
    };
    missing =
      step(
        "capnp",
        ["compile", `-I${join(lib.root, "include")}`, "-oc++", "resourcemonitoring.capnp"],
        "the fetched capnproto",
        { cwd: dir, env },
      ) ??
      step(
        "g++",
        [...cpp, `-I${join(lib.root, "include")}`, `-L${libDir}`, "-l:libcapnp.a", "-l:libkj.a", "-lpthread"],
        "g++ and the fetched libcapnp-dev",
        { cwd: dir },
      );
  }
  return missing === undefined ? { bin: join(dir, "capnpCppBilling") } : { missing };
}
