import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import { SyncIncompleteError } from "../../errors.js";
import { sync, type SyncedAccount } from "../../sync/sync.js";
import { isoUtc } from "../../time.js";
import { startStepsProgress } from "../progress.js";
import { commandLine } from "./index.js";
import { authFromArgs, policyFromArgs, SERVICE_OPTIONS, type ServiceFlags } from "../serviceOptions.js";

const options = {
  url: { type: "string", demandOption: true, requiresArg: true, describe: "service base address {base_url}, e.g. https://cloud.example.com" },
  db: { type: "string", demandOption: true, requiresArg: true, describe: "the warehouse file to create or bring up to date" },
  "account-id": { type: "number", array: true, nargs: 1, describe: "account to sync (repeat for several; default: every account of accounts/list)" },
  since: { type: "string", requiresArg: true, describe: "first hour to download, for every account (default: where the last sync ended; needed for an empty warehouse)" },
  until: { type: "string", requiresArg: true, describe: "end of the hours to download, exclusive (default: the start of the current hour)" },
  chunk: { choices: ["day", "week"] as const, default: "day", describe: "hours per download and ingest" },
  replace: { type: "boolean", default: false, describe: "a different file for a held account-hour replaces it (as ingest --replace)" },
  "skip-bad": { type: "boolean", default: false, describe: "record bad files and conflicts as rejected and go on (as ingest --skip-bad)" },
  ...SERVICE_OPTIONS,
} as const;

type SyncArgs = ArgumentsCamelCase<ServiceFlags & {
  url: string;
  db: string;
  accountId?: number[];
  since?: string;
  until?: string;
  chunk: "day" | "week";
  replace: boolean;
  skipBad: boolean;
}>;

/** One stderr line per account: what was asked and what came in. */
function accountLine(a: SyncedAccount): string {
  const period = `[${isoUtc(a.fromEpoch)}, ${isoUtc(a.untilEpoch)})`;
  switch (a.status) {
    case "up-to-date":
      return `account ${a.accountId}: up to date`;
    case "synced":
      return `account ${a.accountId}: synced ${period}: ${a.accountHoursLoaded} new account-hours (${a.accountHoursDownloaded} downloaded, ${a.bytes} bytes, ${a.chunks} chunk${a.chunks === 1 ? "" : "s"})`;
    case "failed":
      return `account ${a.accountId}: FAILED after ${a.chunksDone} of ${a.chunks} chunks of ${period} (${a.accountHoursLoaded} new account-hours kept)`;
  }
}

/** `cloudunits sync`: keep a warehouse file current from the live service. */
export const syncCommand: CommandModule<object, SyncArgs> = {
  ...commandLine("sync"),
  builder: (yargs: Argv<object>) => yargs.options(options) as unknown as Argv<SyncArgs>,
  handler: async (argv) => {
    const policy = policyFromArgs(argv);
    const auth = authFromArgs(argv, process.env);
    const bar = startStepsProgress("syncing", "hours");
    const lines: string[] = [];
    try {
      const report = await sync({
        url: argv.url,
        auth,
        db: argv.db,
        accountIds: argv.accountId,
        since: argv.since,
        until: argv.until,
        chunk: argv.chunk,
        replace: argv.replace,
        skipBad: argv.skipBad,
        ...policy,
        onProgress: (p) => bar.update(p.hoursDone, p.hoursTotal, `account ${p.accountId} ${isoUtc(p.chunkStartEpoch).slice(0, 10)} ${p.phase}`),
        onAccount: (a) => lines.push(accountLine(a)),
      });
      bar.stop();
      for (const line of lines) process.stderr.write(`cloudunits: ${line}\n`);
      process.stderr.write(
        `cloudunits: ${argv.db} now holds ${report.totalAccountHours} account-hours; names stored: ${report.namesStored.accounts} accounts, ${report.namesStored.cloudspaces} cloud spaces\n`,
      );
    } catch (error) {
      bar.stop();
      if (error instanceof SyncIncompleteError) for (const line of lines) process.stderr.write(`cloudunits: ${line}\n`);
      throw error;
    }
  },
};
