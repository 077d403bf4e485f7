// The command-line tool as the tests run it: every module of src/ transpiled once per test run
// (esbuild, one .js per .ts, as tsx would do on every start), yargs and the tool bundled as `npm run build`
// bundles them, into a temporary folder laid out like the package (dist/, with package.json,
// reports/ and node_modules/ linked beside it).
// A spawned `node …/dist/cli/main.js` then starts in about a third of the time of
// `node --import tsx src/cli/main.ts`, which transpiles on every start; the suite spawns the
// tool hundreds of times. `sources.json` records what the build was made from, so a test can
// prove that the tool the tests ran is the current source (test/cliBuild.test.ts).
import { createHash } from "node:crypto";
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { build } from "esbuild";
import { bundleCli } from "../../scripts/bundleCli.mjs";
import { bundleYargs } from "../../scripts/bundleYargs.mjs";

export const REPO = join(import.meta.dirname, "../..");
const SRC = join(REPO, "src");

/** The files of the package beside dist/ that the tool reads at run time, linked into the build. */
const LINKED = ["package.json", "reports", "node_modules"];

/** Every .ts file under src/, as paths relative to src/, sorted. */
async function sourceFiles(): Promise<string[]> {
  const entries = await readdir(SRC, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => relative(SRC, join(e.parentPath, e.name)))
    .sort();
}

/** The SHA-256 of every .ts file under src/ now, by path relative to src/. */
export async function sourceHashes(): Promise<Record<string, string>> {
  const hashes: Record<string, string> = {};
  for (const file of await sourceFiles())
    hashes[file] = createHash("sha256")
      .update(await readFile(join(SRC, file)))
      .digest("hex");
  return hashes;
}

/** Builds the tool into a new temporary folder, or again into `into` (a folder it made); returns the folder. */
export async function buildCli(into?: string): Promise<string> {
  const root = into ?? (await mkdtemp(join(tmpdir(), "cloudunits-testcli-")));
  const hashes = await sourceHashes();
  await rm(join(root, "dist"), { recursive: true, force: true }); // a module removed from src leaves the build too
  await build({
    entryPoints: Object.keys(hashes).map((file) => join(SRC, file)),
    outbase: SRC,
    outdir: join(root, "dist"),
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
  });
  await bundleYargs(join(root, "dist")); // as the shipped build does: yargs' ~40 modules load as one
  await bundleCli(join(root, "dist")); // and the tool's own modules in a few chunks
  if (!into) for (const name of LINKED) await symlink(join(REPO, name), join(root, name));
  await writeFile(join(root, "sources.json"), `${JSON.stringify(hashes, null, 1)}\n`);
  return root;
}

/** The SHA-256 of every source file a build in `root` was made from. */
export async function builtFrom(root: string): Promise<Record<string, string>> {
  return JSON.parse(await readFile(join(root, "sources.json"), "utf8")) as Record<string, string>;
}
