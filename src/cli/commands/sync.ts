import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import { SyncIncompleteError } from "../../base/errors.js";
import { formatHours, hourRangesJson } from "../../sync/formatHours.js";
import { DEFAULT_SYNC_WAIT_SECONDS, sync, type SyncedAccount, type SyncReport } from "../../sync/sync.js";
import {
  DEFAULT_ASK_MISSING_EVERY_HOURS,
  DEFAULT_LOOK_BACK_HOURS,
  DEFAULT_RETENTION_HOURS,
  DEFAULT_SETTLE_HOURS,
} from "../../sync/syncPlan.js";
import { isoUtc } from "../../base/time.js";
import { startStepsProgress } from "../progress.js";
import { commandLine } from "./index.js";
import { authFromArgs, policyFromArgs, SERVICE_OPTIONS, type ServiceFlags } from "../serviceOptions.js";
import { flagWords } from "../flagWords.js";

const options = {
  url: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "service base address {base_url}, e.g. https://cloud.example.com",
  },
  db: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the warehouse file to create or bring up to date",
  },
  "account-id": {
    type: "number",
    array: true,
    nargs: 1,
    describe: "account to sync (repeat for several; default: every account of accounts/list)",
  },
  since: {
    type: "string",
    requiresArg: true,
    describe:
      "first hour to download again, for every account (default: after the hours the last sync asked for; needed for an empty warehouse)",
  },
  until: {
    type: "string",
    requiresArg: true,
    describe: "end of the hours to download, exclusive (default: the start of the current hour)",
  },
  "look-back": {
    type: "number",
    default: DEFAULT_LOOK_BACK_HOURS,
    requiresArg: true,
    describe:
      "hours back in which every hour not held is asked again on each run (the platform writes hours late); past it, a missing hour is said once and asked again less often",
  },
  settle: {
    type: "number",
    default: DEFAULT_SETTLE_HOURS,
    requiresArg: true,
    describe: "the last hours asked again on each run even when held (a rewritten hour replaces the held one)",
  },
  retention: {
    type: "number",
    default: DEFAULT_RETENTION_HOURS,
    requiresArg: true,
    describe:
      "hours the platform keeps (two months): a missing hour is asked for until it is older, then given up as lost at source",
  },
  "ask-missing-every": {
    type: "number",
    default: DEFAULT_ASK_MISSING_EVERY_HOURS,
    requiresArg: true,
    describe:
      "ask again for the missing hours older than the look-back once in this many hours (at once when the platform writes again after a stall)",
  },
  verify: {
    type: "number",
    requiresArg: true,
    describe:
      "download again the held hours of the last DAYS days and compare their files' SHA-256: a changed hour replaces the held one (logged as rewritten)",
  },
  chunk: {
    choices: ["day", "week", "month"] as const,
    default: "day",
    describe: "hours per download (the accounts' downloads are ingested together, up to 8 MiB of archives a step)",
  },
  replace: {
    type: "boolean",
    default: true,
    describe: "a rewritten hour replaces the held one (--no-replace: it is a conflict)",
  },
  "skip-bad": {
    type: "boolean",
    default: false,
    describe: "record bad files and conflicts as rejected and go on (as ingest --skip-bad)",
  },
  wait: {
    type: "number",
    default: DEFAULT_SYNC_WAIT_SECONDS,
    requiresArg: true,
    describe: "before each write, wait up to this many seconds for readers of the warehouse to let go; then exit 6",
  },
  format: {
    choices: ["text", "json"] as const,
    default: "text",
    describe: "text: a line per account on stderr; json: the report on stdout",
  },
  quiet: {
    type: "boolean",
    default: false,
    describe:
      "print only what needs a human: failures, rewritten hours, hours missing after the look-back, hours lost at source",
  },
  ...SERVICE_OPTIONS,
} as const;

type SyncArgs = ArgumentsCamelCase<
  ServiceFlags & {
    url: string;
    db: string;
    accountId?: number[];
    since?: string;
    until?: string;
    lookBack: number;
    settle: number;
    retention: number;
    askMissingEvery: number;
    verify?: number;
    chunk: "day" | "week" | "month";
    replace: boolean;
    skipBad: boolean;
    wait: number;
    format: "text" | "json";
    quiet: boolean;
  }
>;

const hours = (n: number) => `${n} hour${n === 1 ? "" : "s"}`;

/** The stderr lines of one account: what was asked and what came in, then what a human should see (also with --quiet). */
function accountLines(a: SyncedAccount, argv: Pick<SyncArgs, "lookBack" | "retention" | "quiet">): string[] {
  const lines: string[] = [];
  const period = `[${isoUtc(a.fromEpoch)}, ${isoUtc(a.untilEpoch)})`;
  const also = [
    ...(a.missingAsked > 0 ? [`${hours(a.missingAsked)} not held, older than the look-back, asked again`] : []),
    ...(a.verifiedHours > 0 ? [`${hours(a.verifiedHours)} held verified`] : []),
  ];
  const asked = `${a.hoursAsked} hours asked again${also.length > 0 ? `, ${also.join(", ")}` : ""}`;
  if (!argv.quiet) {
    switch (a.status) {
      case "up-to-date":
        lines.push(`account ${a.accountId}: up to date (${asked}, nothing new)`);
        break;
      case "waiting":
        lines.push(`account ${a.accountId}: nothing new, hours not written yet (${asked})`);
        break;
      case "synced":
        lines.push(
          `account ${a.accountId}: synced ${period}: ${a.accountHoursLoaded} new account-hours (${a.accountHoursDownloaded} downloaded, ${a.bytes} bytes, ${a.chunks} chunk${a.chunks === 1 ? "" : "s"}${also.length > 0 ? `; ${also.join(", ")}` : ""})`,
        );
        break;
      case "failed":
        break;
    }
    if (a.leftToOtherRun > 0 && a.otherRun) {
      lines.push(
        `account ${a.accountId}: ${hours(a.leftToOtherRun)} left to the sync already downloading them (PID ${a.otherRun.pid} on ${a.otherRun.host}, started ${isoUtc(a.otherRun.startedAtEpoch)}), not asked again`,
      );
    }
    if (a.lateHours.length > 0)
      lines.push(`account ${a.accountId}: ${hours(a.lateHours.length)} arrived late: ${formatHours(a.lateHours)}`);
    if (a.awaitingHours.length > 0) {
      lines.push(
        `account ${a.accountId}: ${hours(a.awaitingHours.length)} not yet written by the platform, asked again by the next runs: ${formatHours(a.awaitingHours)}`,
      );
    }
  }
  if (a.status === "failed")
    lines.push(
      `account ${a.accountId}: FAILED after ${a.chunksDone} of ${a.chunks} chunks of ${period} (${a.accountHoursLoaded} new account-hours kept)`,
    );
  if (a.rewrittenHours.length > 0) {
    lines.push(
      `account ${a.accountId}: ${hours(a.rewrittenHours.length)} rewritten by the platform, the held one replaced: ${formatHours(a.rewrittenHours)}`,
    );
  }
  if (a.missingHours.length > 0) {
    lines.push(
      `account ${a.accountId}: warning: ${hours(a.missingHours.length)} still not written after the ${argv.lookBack}-hour look-back (missing), asked again less often until the ${argv.retention}-hour retention ends: ${formatHours(a.missingHours)}`,
    );
  }
  if (a.lostHours.length > 0) {
    lines.push(
      `account ${a.accountId}: warning: ${hours(a.lostHours.length)} lost at source: never written by the platform within its ${argv.retention}-hour retention, given up for good: ${formatHours(a.lostHours)}`,
    );
  }
  return lines;
}

/** The report as JSON: times in ISO 8601, hours as ranges. */
function reportJson(db: string, accounts: SyncedAccount[], report: SyncReport | undefined) {
  return {
    db,
    ok: accounts.every((a) => a.status !== "failed") && report !== undefined,
    accounts: accounts.map((a) => ({
      accountId: a.accountId,
      status: a.status,
      from: isoUtc(a.fromEpoch),
      until: isoUtc(a.untilEpoch),
      hoursAsked: a.hoursAsked,
      chunks: a.chunks,
      chunksDone: a.chunksDone,
      accountHoursDownloaded: a.accountHoursDownloaded,
      accountHoursLoaded: a.accountHoursLoaded,
      bytes: a.bytes,
      late: hourRangesJson(a.lateHours),
      rewritten: hourRangesJson(a.rewrittenHours),
      notYetWritten: hourRangesJson(a.awaitingHours),
      missing: hourRangesJson(a.missingHours),
      missingAsked: a.missingAsked,
      lost: hourRangesJson(a.lostHours),
      verifiedHours: a.verifiedHours,
      leftToOtherRun: a.leftToOtherRun,
      error: a.error
        ? { message: flagWords(a.error.message), code: "code" in a.error ? String(a.error.code) : undefined }
        : null,
    })),
    namesStored: report?.namesStored ?? null,
    totalAccountHours: report?.totalAccountHours ?? null,
  };
}

/** `cloudunits sync`: keep a warehouse file current from the live service. */
export const syncCommand: CommandModule<object, SyncArgs> = {
  ...commandLine("sync"),
  builder: (yargs: Argv<object>) => yargs.options(options) as unknown as Argv<SyncArgs>,
  handler: async (argv) => {
    const policy = policyFromArgs(argv);
    const auth = authFromArgs(argv, process.env);
    const bar = startStepsProgress("syncing", "hours");
    const accounts: SyncedAccount[] = [];
    const print = (report: SyncReport | undefined) => {
      if (argv.format === "json") {
        process.stdout.write(`${JSON.stringify(reportJson(argv.db, accounts, report), null, 2)}\n`);
        return;
      }
      for (const a of accounts) for (const line of accountLines(a, argv)) process.stderr.write(`cloudunits: ${line}\n`);
      if (report && !argv.quiet) {
        process.stderr.write(
          `cloudunits: ${argv.db} now holds ${report.totalAccountHours} account-hours; names stored: ${report.namesStored.accounts} accounts, ${report.namesStored.cloudspaces} cloud spaces\n`,
        );
      }
    };
    try {
      const report = await sync({
        url: argv.url,
        auth,
        db: argv.db,
        accountIds: argv.accountId,
        since: argv.since,
        until: argv.until,
        lookBackHours: argv.lookBack,
        settleHours: argv.settle,
        retentionHours: argv.retention,
        askMissingEveryHours: argv.askMissingEvery,
        verifyDays: argv.verify,
        chunk: argv.chunk,
        replace: argv.replace,
        skipBad: argv.skipBad,
        waitSeconds: argv.wait,
        ...policy,
        onProgress: (p) =>
          bar.update(
            p.hoursDone,
            p.hoursTotal,
            `account ${p.accountId} ${isoUtc(p.chunkStartEpoch).slice(0, 10)} ${p.phase}`,
          ),
        onAccount: (a) => accounts.push(a),
      });
      bar.stop();
      print(report);
    } catch (error) {
      bar.stop();
      if (error instanceof SyncIncompleteError) print(undefined);
      throw error;
    }
  },
};
