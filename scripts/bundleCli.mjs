// The command-line tool's own modules bundled: DIR/cli/main.js and the modules it reaches become one
// entry and a few shared chunks in DIR/cli/ (each command, loaded by `import()`, its own chunk), so a
// command loads tens of files where it loaded over a hundred (docs/performance.md, "Start-up"). The
// modules stay in DIR as compiled too: the library (`import "cloudunits"`) and the decoding workers
// load those. Packages stay outside the bundle (node_modules, as before). Used by scripts/build.mjs
// (dist/) and by the tests' build of the tool (test/helpers/buildCli.ts), after bundleYargs.
//
// Two things keep the bundle's code what the modules were:
// - `import.meta.url` in a module is its own file's URL (fonts, reports/, the worker's module and
//   the billing tap are found beside it), not the chunk's: each is written as that file's URL;
// - the syntax is minified (`minifySyntax`): a bundle turns a module's top-level `const` into
//   `var`, and minifying puts the value of a constant (the Cap'n Proto layout's offsets) where it
//   is used, as the compiler did for the modules' constants. Names and layout stay readable.
import { readFile } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { build } from "esbuild";

const META_URL = "import.meta.url";

/** Bundles `outDir`/cli/main.js (as compiled, yargs bundled) into itself and chunks beside it. */
export async function bundleCli(outDir) {
  const cli = join(outDir, "cli");
  const ownUrl = {
    name: "own-import-meta-url",
    setup(b) {
      b.onLoad({ filter: /\.js$/ }, async ({ path }) => {
        const code = await readFile(path, "utf8");
        if (!code.includes(META_URL)) return undefined;
        const from = relative(cli, path).split(sep).join("/");
        const url = `new URL(${JSON.stringify(from.startsWith(".") ? from : `./${from}`)}, import.meta.url).href`;
        return { contents: code.replaceAll(META_URL, url), loader: "js" };
      });
    },
  };
  await build({
    entryPoints: [join(cli, "main.js")],
    outdir: cli,
    allowOverwrite: true,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    minifySyntax: true,
    entryNames: "[name]",
    chunkNames: "[name]-[hash]",
    plugins: [ownUrl],
    logLevel: "warning",
  });
  const entry = await readFile(join(cli, "main.js"), "utf8");
  if (!entry.startsWith("#!")) throw new Error(`build: ${join(cli, "main.js")} lost its #! line`);
}
