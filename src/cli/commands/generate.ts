import { stat } from "node:fs/promises";
import type { Argv, CommandModule } from "yargs";
import { GENERATE_DEFAULTS } from "../../generate/generateHours.js";
import { writeDataset } from "../../generate/writeDataset.js";
import { parseTime } from "../../base/time.js";
import { startFilesProgress } from "../progress.js";
import { commandLine } from "./index.js";

const options = {
  out: { type: "string", demandOption: true, describe: "a directory (tree) or a FILE.zip to write" },
  accounts: { type: "number", default: GENERATE_DEFAULTS.accounts, describe: "number of accounts" },
  spaces: { type: "number", default: GENERATE_DEFAULTS.spaces, describe: "cloud spaces per account" },
  machines: { type: "number", default: GENERATE_DEFAULTS.machines, describe: "virtual machines per cloud space" },
  hours: { type: "number", default: GENERATE_DEFAULTS.hours, describe: "number of consecutive hours" },
  start: {
    type: "string",
    default: "2026-10-01T00:00Z",
    describe: "first hour: epoch seconds or ISO 8601, on the hour",
  },
  seed: { type: "number", default: GENERATE_DEFAULTS.seed, describe: "seed of the model: same seed, same files" },
  "first-account-id": {
    type: "number",
    default: GENERATE_DEFAULTS.firstAccountId,
    describe: "id of the first account",
  },
  "missing-hours": {
    type: "string",
    default: "0",
    describe:
      "hours without a file: a fraction (0–1) of each account's hours, or a comma-separated list of times dropped for every account",
  },
  "cloudspace-files": {
    type: "boolean",
    default: false,
    describe: "write per-cloud-space <cloudSpaceId>.bin files (root CloudSpace)",
  },
  packed: { type: "boolean", default: false, describe: "packed encoding, files named *.packed" },
  "old-schema": { type: "boolean", default: false, describe: "write Disk as the older schema did (no configuredIops)" },
  "segment-words": { type: "number", describe: "split messages into segments of this many words (far pointers)" },
  "double-far": {
    type: "boolean",
    default: false,
    describe: "with --segment-words: double-far pointers (two-word landing pads)",
  },
  padded: {
    type: "boolean",
    default: false,
    describe: "zero-padded month/day/hour directories (the platform writes them unpadded)",
  },
  "leading-folders": { type: "string", describe: "folders before <accountId>, e.g. var/billing" },
  "gateway-rx-in-tx": {
    type: "boolean",
    default: false,
    describe: "gateway external NIC with received bytes in tx and 0 in rx (a platform quirk)",
  },
} as const;

interface GenerateArgs {
  out: string;
  accounts: number;
  spaces: number;
  machines: number;
  hours: number;
  start: string;
  seed: number;
  firstAccountId: number;
  missingHours: string;
  cloudspaceFiles: boolean;
  packed: boolean;
  oldSchema: boolean;
  segmentWords?: number;
  doubleFar: boolean;
  padded: boolean;
  leadingFolders?: string;
  gatewayRxInTx: boolean;
}

/** `cloudunits generate`: writes a synthetic data set and prints a one-line summary on stderr. */
export const generateCommand: CommandModule<object, GenerateArgs> = {
  ...commandLine("generate"),
  builder: (yargs) => yargs.options(options) as unknown as Argv<GenerateArgs>,
  handler: async (argv) => {
    const start = parseTime(argv.start, "--start");
    const missingHours = parseMissingHours(argv.missingHours);
    const missingPerAccount =
      typeof missingHours === "number"
        ? Math.round(missingHours * argv.hours)
        : new Set(missingHours.filter((t) => t >= start && t < start + argv.hours * 3600 && (t - start) % 3600 === 0))
            .size;
    const filesTotal =
      argv.accounts * Math.max(0, argv.hours - missingPerAccount) * (argv.cloudspaceFiles ? argv.spaces : 1);
    const progress = startFilesProgress("generate");
    const result = await writeDataset({
      out: argv.out,
      accounts: argv.accounts,
      spaces: argv.spaces,
      machines: argv.machines,
      hours: argv.hours,
      start,
      seed: argv.seed,
      firstAccountId: argv.firstAccountId,
      missingHours,
      cloudSpaceFiles: argv.cloudspaceFiles,
      packed: argv.packed,
      oldSchema: argv.oldSchema,
      segmentWords: argv.segmentWords,
      doubleFar: argv.doubleFar,
      padded: argv.padded,
      leadingFolders: argv.leadingFolders,
      gatewayRxInTx: argv.gatewayRxInTx,
      // The size is known only as files are written: the total is extrapolated from those so far.
      onProgress: (p) =>
        progress.update({
          filesDone: p.files,
          filesTotal,
          bytesDone: p.bytes,
          bytesTotal: (p.bytes / p.files) * filesTotal,
        }),
    }).finally(() => progress.stop());
    const archive = argv.out.toLowerCase().endsWith(".zip") ? `, zip ${mb((await stat(argv.out)).size)} MB` : "";
    process.stderr.write(
      `cloudunits: wrote ${result.files} files, ${mb(result.bytes)} MB${archive}, ${result.accountHours} account-hours to ${argv.out}\n`,
    );
  },
};

/** A fraction (a number from 0 to 1), or a comma-separated list of times (epoch seconds or ISO 8601). */
function parseMissingHours(text: string): number | number[] {
  if (/^(0|1|0?\.\d+|1\.0*)$/.test(text.trim())) return Number(text);
  return text.split(",").map((t) => parseTime(t, "--missing-hours time"));
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(bytes < 1e6 ? 3 : 1);
}
