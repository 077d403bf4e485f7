import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { bill } from "../../billEntry/bill.js";
import { loadNames } from "../../billing/names.js";
import { toBillingText } from "../../export/toBillingText.js";
import { GENERATE_DEFAULTS } from "../../generate/generateHours.js";
import { writeDataset } from "../../generate/writeDataset.js";
import { isoUtc } from "../../base/time.js";
import { commandLine } from "./index.js";

interface DemoArgs {
  keep: boolean;
}

const HOURS = 48;
/** The sample accounts' names (the generator's accounts are 1, 2, 3), written as a names file beside the data. */
const NAMES = ["Nordlicht Media", "Lumière Énergie", "Zeta Logistics"];

/**
 * `cloudunits demo` (what `npm start` runs): generates a small data set in a temporary
 * folder, bills it and prints its billing summary, then the commands to explore it further.
 */
export const demoCommand: CommandModule<object, DemoArgs> = {
  ...commandLine("demo"),
  builder: (yargs) =>
    yargs.options({
      keep: { type: "boolean", default: false, describe: "keep the temporary folder (its path is printed)" },
    }),
  handler: async (argv) => {
    const dir = await mkdtemp(join(tmpdir(), "cloudunits-demo-"));
    const data = join(dir, "consumption");
    try {
      const start = GENERATE_DEFAULTS.start;
      const end = start + HOURS * 3600;
      const missing = start + 30 * 3600;
      const written = await writeDataset({
        out: data,
        accounts: NAMES.length,
        spaces: 2,
        machines: 6,
        hours: HOURS,
        seed: 1,
        missingHours: [missing],
      });
      const accountId = GENERATE_DEFAULTS.firstAccountId;
      const namesFile = join(dir, "names.csv");
      await writeFile(
        namesFile,
        `kind,id,name\n${NAMES.map((name, i) => `account,${accountId + i},${name}`).join("\n")}\n`,
      );
      process.stdout.write(
        `generated ${written.files} hourly files (${(written.bytes / 1e6).toFixed(1)} MB) in ${data}, and the accounts' names in ${namesFile};\n` +
          `the hour ${isoUtc(missing)} is left out on purpose, to show how a missing hour is reported (the warnings below)\n\n`,
      );
      const names = await loadNames(namesFile);
      const { report } = await bill({ source: [data], period: { start, end }, rules: { names } });
      process.stdout.write(toBillingText(report));
      const machineId = Math.min(
        ...report.lines.filter((l) => l.level === "machine" && l.accountId === accountId).map((l) => l.machineId!),
      );
      const next = [
        `npx cloudunits billing ${data} --start ${isoUtc(start)} --end ${isoUtc(end)} --account-id ${accountId} --names ${namesFile} --format json`,
        `npx cloudunits stats machine ${data} --id ${machineId} --account-id ${accountId} --from ${isoUtc(start)} --till ${isoUtc(end)} --include cpu --include memory`,
        `npx cloudunits check ${data}`,
      ];
      const intro = argv.keep
        ? "the data is kept; try"
        : "to explore further, keep the data with `npm start -- --keep` and try";
      process.stdout.write(`\n${intro}:\n${next.map((c) => `  ${c}`).join("\n")}\n`);
    } finally {
      if (!argv.keep) await rm(dir, { recursive: true, force: true });
    }
  },
};
