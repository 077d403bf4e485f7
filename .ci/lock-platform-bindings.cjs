#!/usr/bin/env node
// Run after any `npm install` that rewrites package-lock.json: `node .ci/lock-platform-bindings.cjs`.
// Adds lock entries for DuckDB's platform bindings that this machine's registry does not serve,
// so `npm ci` finds the lock in sync; on linux-x64 npm skips them by os/cpu without fetching.
const fs = require("fs");
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
const v = "1.5.6-r.1";
const platforms = {
  "darwin-arm64": { os: ["darwin"], cpu: ["arm64"] },
  "darwin-x64": { os: ["darwin"], cpu: ["x64"] },
  "linux-arm64": { os: ["linux"], cpu: ["arm64"], libc: ["glibc"] },
  "linux-arm64-musl": { os: ["linux"], cpu: ["arm64"], libc: ["musl"] },
  "win32-arm64": { os: ["win32"], cpu: ["arm64"] },
  "win32-x64": { os: ["win32"], cpu: ["x64"] },
};
for (const [p, spec] of Object.entries(platforms)) {
  const key = `node_modules/@duckdb/node-bindings-${p}`;
  if (!lock.packages[key]) lock.packages[key] = { version: v, ...spec, license: "MIT", optional: true };
}
fs.writeFileSync("package-lock.json", JSON.stringify(lock, null, 2) + "\n");
