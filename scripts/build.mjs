// Builds dist/: every module as TypeScript compiles it (one .js and .d.ts each, no source maps: the library
// `import "cloudunits"` loads), then the command-line tool bundled: yargs into one module, dist/cli/yargs.js
// (scripts/bundleYargs.mjs), and the tool's own modules into dist/cli/main.js and chunks beside it
// (scripts/bundleCli.mjs), so that a command loads a few tens of files instead of over a hundred. Why, and
// what it saves and costs: docs/performance.md, "Start-up".
//
//   node scripts/build.mjs [--out-dir DIR]     (default dist; the package test builds elsewhere)
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { bundleCli } from "./bundleCli.mjs";
import { bundleYargs } from "./bundleYargs.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { "out-dir": { type: "string", default: "dist" } } });
const outDir = resolve(root, values["out-dir"]);

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
rmSync(outDir, { recursive: true, force: true }); // nothing stale: a module removed from src leaves dist too
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", outDir], {
  stdio: "inherit",
});
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

// yargs in one module (scripts/bundleYargs.mjs), then the tool's modules with it (scripts/bundleCli.mjs)
await bundleYargs(outDir);
await bundleCli(outDir);
chmodSync(join(outDir, "cli/main.js"), 0o755);

// The fonts documents use, and their licenses, into a fonts/ folder beside the module that reads
// them (pdfFonts.js, wherever it is under src/): the five files its FILES lists, not the font
// packages, which are development dependencies.
const require = createRequire(import.meta.url);
const fontModule = readdirSync(join(root, "src"), { recursive: true }).find((f) => basename(f) === "pdfFonts.ts");
if (fontModule === undefined) throw new Error("build: no pdfFonts.ts under src/");
const fontList = readFileSync(join(root, "src", fontModule), "utf8");
const fonts = [...fontList.matchAll(/^\s+\w+: "([^"]+\.(?:ttf|woff))",$/gm)].map((m) => m[1]);
if (fonts.length !== 5) throw new Error(`build: expected 5 fonts in ${fontModule}, found ${fonts.length}`);
const fontDir = join(outDir, dirname(fontModule), "fonts");
mkdirSync(fontDir);
for (const font of fonts) copyFileSync(require.resolve(font), join(fontDir, basename(font)));
for (const pkg of new Set(
  fonts.map((font) =>
    font
      .split("/")
      .slice(0, font.startsWith("@") ? 2 : 1)
      .join("/"),
  ),
)) {
  const license = join(dirname(require.resolve(`${pkg}/package.json`)), "LICENSE");
  copyFileSync(license, join(fontDir, `LICENSE-${basename(pkg)}`));
}

// ESM only: a CommonJS `require("cloudunits")` meets these (package.json's "require" condition)
// instead of a bare ERR_PACKAGE_PATH_NOT_EXPORTED: TypeScript refuses the import naming this file
// ("... cloudunits-is-ESM-only.d.cts is not a module"), and Node throws the message below.
const ESM_ONLY =
  'cloudunits is an ES module only: load it with import from an ES module ("type": "module" in package.json, ' +
  'or a .mjs/.mts file), or with await import("cloudunits") from CommonJS';
writeFileSync(join(outDir, "cloudunits-is-ESM-only.d.cts"), `// ${ESM_ONLY}\n`);
writeFileSync(join(outDir, "cloudunits-is-ESM-only.cjs"), `throw new Error(${JSON.stringify(ESM_ONLY)});\n`);
