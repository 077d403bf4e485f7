// Node loader hooks that append the name of every package a process loads to the file named by
// CLOUDUNITS_TEST_PACKAGE_LOG, one per line: `node --import ./logPackages.mjs ...`.
import { appendFileSync } from "node:fs";
import { register } from "node:module";

if (process.env.CLOUDUNITS_TEST_PACKAGE_LOG) register(import.meta.url);

/** @type {import("node:module").ResolveHook} */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(resolved.url);
  const log = process.env.CLOUDUNITS_TEST_PACKAGE_LOG;
  if (match && log && !match[1].startsWith("tsx") && !match[1].startsWith("get-tsconfig")) appendFileSync(log, `${match[1]}\n`);
  return resolved;
}
