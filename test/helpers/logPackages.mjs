// Node loader hooks that append the name of every package a process loads to the file named by
// CLOUDUNITS_TEST_PACKAGE_LOG, one per line: `node --import ./logPackages.mjs ...`. Both ways in
// are seen: `import` (a resolve hook) and `require` (CommonJS resolution, which the resolve
// hooks of Node 20 do not see: DuckDB's packages are required).
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import { pathToFileURL } from "node:url";

const log = process.env.CLOUDUNITS_TEST_PACKAGE_LOG;

/** Logs the package of a resolved URL (not the loader's own). */
function logPackage(url) {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (match && log && !match[1].startsWith("tsx") && !match[1].startsWith("get-tsconfig"))
    appendFileSync(log, `${match[1]}\n`);
}

if (log) {
  register(import.meta.url);
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    const resolved = resolveFilename.call(this, request, ...rest);
    if (typeof resolved === "string" && resolved.startsWith("/")) logPackage(pathToFileURL(resolved).href);
    return resolved;
  };
}

/** @type {import("node:module").ResolveHook} */
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  logPackage(resolved.url);
  return resolved;
}
