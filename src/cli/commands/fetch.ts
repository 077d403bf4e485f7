import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import { UsageError } from "../../base/errors.js";
import { isDirectoryOut } from "../../fetch/consumptionFile.js";
import { fetchConsumption } from "../../fetch/fetchConsumption.js";
import { startBytesProgress } from "../progress.js";
import { commandLine } from "./index.js";
import { authFromArgs, policyFromArgs, SERVICE_OPTIONS, type ServiceFlags } from "../serviceOptions.js";

export { authFromArgs } from "../serviceOptions.js";

const options = {
  url: {
    type: "string",
    demandOption: true,
    describe: "service base address {base_url}, e.g. https://cloud.example.com",
  },
  "account-id": {
    type: "number",
    array: true,
    nargs: 1,
    demandOption: true,
    describe: "account to download (repeat for several: one file each)",
  },
  start: {
    type: "string",
    demandOption: true,
    describe: "start of the period: epoch seconds or ISO 8601 (UTC when no zone)",
  },
  end: { type: "string", demandOption: true, describe: "end of the period (exclusive)" },
  out: {
    type: "string",
    demandOption: true,
    describe: "file to write, or a directory (existing, or ending with /) for consumption-<id>-<start>-<end>.zip",
  },
  ...SERVICE_OPTIONS,
} as const;

type FetchArgs = ArgumentsCamelCase<
  ServiceFlags & {
    url: string;
    accountId: number[];
    start: string;
    end: string;
    out: string;
  }
>;

/** `cloudunits fetch`: download consumption archives from the live service (docs/cli.md). */
export const fetchCommand: CommandModule<object, FetchArgs> = {
  ...commandLine("fetch"),
  builder: (yargs: Argv<object>) => yargs.options(options) as unknown as Argv<FetchArgs>,
  handler: async (argv) => {
    const accountIds = argv.accountId;
    for (const id of accountIds) {
      if (!Number.isInteger(id) || id < 1)
        throw new UsageError(`bad --account-id ${String(id)}: use a positive whole number`);
    }
    if (new Set(accountIds).size !== accountIds.length) throw new UsageError("an --account-id is given twice");
    if (accountIds.length > 1 && !(await isDirectoryOut(argv.out))) {
      throw new UsageError(
        `--out ${argv.out} must be a directory (existing, or ending with /) for several --account-id: each account gets its own file`,
      );
    }
    const policy = policyFromArgs(argv);
    const auth = authFromArgs(argv, process.env);
    for (const accountId of accountIds) {
      const bar = startBytesProgress(`account ${accountId}`);
      try {
        const result = await fetchConsumption({
          url: argv.url,
          auth,
          accountId,
          start: argv.start,
          end: argv.end,
          out: argv.out,
          ...policy,
          onProgress: (progress) => bar.update(progress.receivedBytes, progress.totalBytes),
        });
        bar.stop();
        process.stdout.write(`${result.file}\t${result.bytes} bytes\t${result.accountHours} account-hours\n`);
        if (result.accountHours === 0)
          process.stderr.write(`cloudunits: warning: account ${accountId} has no consumption files in the period\n`);
      } finally {
        bar.stop();
      }
    }
  },
};
