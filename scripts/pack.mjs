// Packs the package as users install it: cloudunits-<version>.tgz with dist/ built fresh, and a
// package.json without the repository's scripts and dev dependencies. The repository's
// `prepare` (which builds dist/ on `npm ci` in a checkout) would otherwise ship, and npm 11
// warns on every install of the tarball that it is an install script not covered by
// allowScripts, though npm never runs it for a tarball. The repository's `allowScripts` (what its
// own `npm ci` may run) stays home too. A plain `npm pack` is refused (prepack; `npm run pack`,
// which npm also precedes with prepack, is let through).
//
//   node scripts/pack.mjs [--destination DIR]     (npm run pack; default: the repository)
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { destination: { type: "string", default: root } } });
const destination = resolve(values.destination);

const stage = mkdtempSync(join(tmpdir(), "cloudunits-pack-"));
try {
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  for (const entry of ["README.md", ...pkg.files.filter((f) => f !== "dist")]) {
    cpSync(join(root, entry), join(stage, entry), { recursive: true });
  }
  // overrides: only a devDependency's (capnpc-ts's TypeScript, for the bench), nothing of a user's install
  const {
    scripts: _scripts,
    devDependencies: _devDependencies,
    allowScripts: _allowScripts,
    overrides: _overrides,
    ...published
  } = pkg;
  writeFileSync(join(stage, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  const built = spawnSync(process.execPath, [join(root, "scripts/build.mjs"), "--out-dir", join(stage, "dist")], {
    stdio: "inherit",
  });
  if (built.status !== 0) process.exit(built.status ?? 1);
  const packed = spawnSync("npm", ["pack", "--ignore-scripts", "--pack-destination", destination], {
    cwd: stage,
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  if (packed.status !== 0) process.exit(packed.status ?? 1);
  const tarball = readdirSync(destination).find((f) => f === packed.stdout.trim().split("\n").at(-1));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${destination}`);
  process.stdout.write(`${join(destination, tarball)}\n`);
} finally {
  rmSync(stage, { recursive: true, force: true });
}
