// Builds dist/: the library as TypeScript compiles it (one .js, .d.ts and map per module, what
// `import "cloudunits"` loads), then the command-line tool bundled over dist/cli/: its entry
// (main.js), the decoding worker (decodeWorker.js) and the chunks they share, our code and
// yargs in a few files. Measured on 2 cores: yargs' ~40 modules took 0.11 s to load and ours
// another 0.05 s before a command did any work; bundled, a whole `billing` run is ~0.09 s
// shorter (README, Benchmarks). Packages that are native, heavy and loaded only by the commands
// that need them, or loaded through `require`, stay in node_modules (every dependency but yargs).
//
//   node scripts/build.mjs [--out-dir DIR]     (default dist; the package test builds elsewhere)
//
// The bundle keeps the paths main.js and the modules resolve against their own location
// (../../package.json, ../../reports, ./decodeWorker.js): dist/cli is as deep as dist/<dir>.
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, rmSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { "out-dir": { type: "string", default: "dist" } } });
const outDir = resolve(root, values["out-dir"]);

/** Bundled into the tool: pure JavaScript, and loaded by every command. */
const BUNDLED = new Set(["yargs"]);

/**
 * yargs' string-width (help text widths) makes an Intl.Segmenter when it loads: 24 ms of ICU
 * set-up on every command, though only `--help` and a usage error measure text. Made on first
 * use instead; the code is otherwise as published.
 */
const EAGER_SEGMENTER = "const segmenter = new Intl.Segmenter();";
const lazySegmenter = {
  name: "lazy-segmenter",
  setup(build) {
    build.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async ({ path }) => {
      const code = await readFile(path, "utf8");
      if (!code.includes(EAGER_SEGMENTER)) return undefined;
      const lazy = "let madeSegmenter; const segmenter = { segment: (text) => (madeSegmenter ??= new Intl.Segmenter()).segment(text) };";
      return { contents: code.replace(EAGER_SEGMENTER, lazy), loader: "js" };
    });
  },
};

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", join(root, "tsconfig.build.json"), "--outDir", outDir], { stdio: "inherit" });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

const cli = join(outDir, "cli");
rmSync(cli, { recursive: true, force: true }); // the per-module build of the tool, replaced by the bundle
const { dependencies } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
await build({
  entryPoints: { main: join(root, "src/cli/main.ts"), decodeWorker: join(root, "src/store/decodeWorker.ts") },
  outdir: cli,
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  sourcemap: true,
  external: Object.keys(dependencies).filter((name) => !BUNDLED.has(name)),
  plugins: [lazySegmenter],
  logLevel: "warning",
});
chmodSync(join(cli, "main.js"), 0o755);
