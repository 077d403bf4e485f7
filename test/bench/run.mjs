// Runs every test/bench/*.bench.mjs in turn (each a separate process, so one's memory
// does not weigh on the next), after `npm run build`. Figures are ratios within one run.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
// the scale bench takes hours at full size: it runs when named (`npm run bench -- scale`)
const whenNamed = ["scale.bench.mjs"];
const benches = readdirSync(here)
  .filter((f) => f.endsWith(".bench.mjs"))
  .sort()
  .filter((f) => (only.length === 0 ? !whenNamed.includes(f) : only.some((o) => f.includes(o))));
let failed = 0;
for (const file of benches) {
  console.log(`\n## ${file}`);
  const r = spawnSync(process.execPath, ["--expose-gc", join(here, file)], { stdio: "inherit" });
  if (r.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
