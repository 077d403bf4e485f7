// yargs (pure JavaScript, loaded by every command but --version and --help alone) bundled into
// one module, DIR/cli/yargs.js, which the tool's entry DIR/cli/main.js then loads instead of the
// package. Used by scripts/build.mjs (dist/) and by the tests' build of the tool
// (test/helpers/buildCli.ts), so the tool the tests spawn starts as the shipped one does.
import { readFileSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * yargs' string-width (help text widths) does costly work when it loads, though only `--help`
 * and a usage error measure text: it makes an Intl.Segmenter (24 ms of ICU set-up) and, in
 * string-width 8, parses the regular expression of every RGI emoji (`/^\p{RGI_Emoji}$/v`: about
 * 35 ms, measured as a whole process against the same file without it). Each is made on first use
 * instead; the code is otherwise as published. A text not found (another version) is left as it is.
 */
const LAZY = [
  [
    "const segmenter = new Intl.Segmenter();",
    "let madeSegmenter; const segmenter = { segment: (text) => (madeSegmenter ??= new Intl.Segmenter()).segment(text) };",
  ],
  [
    "const rgiEmojiRegex = /^\\p{RGI_Emoji}$/v;",
    'let madeRgiEmojiRegex; const rgiEmojiRegex = { test: (text) => (madeRgiEmojiRegex ??= new RegExp("^\\\\p{RGI_Emoji}$", "v")).test(text) };',
  ],
];
const lazyStringWidth = {
  name: "lazy-string-width",
  setup(build) {
    build.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async ({ path }) => {
      const code = await readFile(path, "utf8");
      const lazy = LAZY.reduce((text, [eager, made]) => text.replace(eager, made), code);
      return lazy === code ? undefined : { contents: lazy, loader: "js" };
    });
  },
};

/** Bundles yargs into `outDir`/cli/yargs.js and points `outDir`/cli/main.js's one `import("yargs")` at it. */
export async function bundleYargs(outDir) {
  const cli = join(outDir, "cli");
  await build({
    stdin: { contents: 'export { default } from "yargs";', resolveDir: root, loader: "js" },
    outfile: join(cli, "yargs.js"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    plugins: [lazyStringWidth],
    logLevel: "warning",
  });
  const main = join(cli, "main.js");
  const entry = readFileSync(main, "utf8");
  const loads = entry.split('import("yargs")').length - 1;
  if (loads !== 1) throw new Error(`build: expected main.js to import("yargs") once, found ${loads}`);
  writeFileSync(main, entry.replace('import("yargs")', 'import("./yargs.js")'));
}
