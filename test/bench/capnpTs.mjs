// capnp-ts 0.9.3, the Cap'n Proto package most JavaScript users know: the billing bench's second
// peer (capnpTsBilling.mjs). Its code for the schema is generated at bench time into a
// temporary folder, never committed, by its compiler capnpc-ts 0.7.0 (a plugin of the `capnp`
// tool, as capnp-es's is; capnpc-ts runs on TypeScript 4.1.6, held there by package.json's
// `overrides`), and made to require the capnp-ts runtime by its path.
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const schema = join(root, "schema/resourcemonitoring.capnp");
const require = createRequire(join(root, "package.json"));
const GENERATED = "resourcemonitoring.capnp.js";

/** Generates capnp-ts code for the schema into `dir` (`resourcemonitoring.capnp.js`, a CommonJS module). */
export function compileCapnpTs(dir) {
  copyFileSync(schema, join(dir, "resourcemonitoring.capnp"));
  // the package's own bin: node_modules/.bin/capnpc-ts may be capnp-es's plugin of the same name
  const plugin = join(dirname(require.resolve("capnpc-ts/package.json")), "bin/capnpc-ts.js");
  const r = spawnSync("capnp", ["compile", `-o${plugin}`, "resourcemonitoring.capnp"], { cwd: dir, encoding: "utf8" });
  if (r.error?.code === "ENOENT") throw new Error("capnp not found (the capnproto package compiles the schema)");
  if (r.status !== 0) throw new Error(`capnpc-ts failed: ${r.stderr}`);
  const runtime = JSON.stringify(require.resolve("capnp-ts"));
  const generated = join(dir, GENERATED);
  writeFileSync(generated, readFileSync(generated, "utf8").replaceAll('require("capnp-ts")', `require(${runtime})`));
  writeFileSync(join(dir, "package.json"), '{ "type": "commonjs" }\n');
}

/** The capnp-ts runtime and the code {@link compileCapnpTs} generated into `dir`. */
export function capnpTsModules(dir) {
  return { capnp: require("capnp-ts"), schemaModule: require(join(dir, GENERATED)) };
}
