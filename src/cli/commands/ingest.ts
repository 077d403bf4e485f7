import type { Argv, CommandModule } from "yargs";
import { formatHours } from "../../sync/formatHours.js";
import { UsageError } from "../../base/errors.js";
import { ingest, INGEST_BATCH_BYTES } from "../../store/ingest.js";
import { loadNotes, WAIT_OPTION, waitOf, WORKERS_OPTION, workersOf } from "../inputs.js";
import { startFilesProgress } from "../progress.js";
import { commandLine } from "./index.js";

interface IngestArgs {
  inputs: string[];
  db: string;
  replace: boolean;
  skipBad: boolean;
  packed: boolean;
  batchMb: number;
  workers?: number;
  wait?: number;
}

const options = {
  db: { type: "string", demandOption: true, requiresArg: true, describe: "the database file to create or update" },
  replace: {
    type: "boolean",
    default: false,
    describe:
      "a different file for a loaded account-hour replaces it (the old one stays in the manifest as superseded)",
  },
  "skip-bad": {
    type: "boolean",
    default: false,
    describe: "record unreadable files and conflicts as rejected and go on",
  },
  packed: {
    type: "boolean",
    default: false,
    describe: "read every file as packed Cap'n Proto (files named *.packed always are)",
  },
  "batch-mb": {
    type: "number",
    default: INGEST_BATCH_BYTES / 2 ** 20,
    describe: "megabytes of input per transaction (a killed run loses at most the one in flight)",
  },
  workers: WORKERS_OPTION,
  wait: {
    ...WAIT_OPTION,
    describe:
      "while another process holds the file (a sync, readers), wait up to this many seconds; then exit 6 (default 60)",
  },
} as const;

/** One warning per account of the hours loaded that are later than the current hour: kept, and counted as nothing until their hour comes. */
function futureWarnings(hours: readonly { accountId: number; hourEpoch: number }[]): string[] {
  const accounts = [...new Set(hours.map((h) => h.accountId))];
  return accounts.map((accountId) => {
    const own = hours.filter((h) => h.accountId === accountId).map((h) => h.hourEpoch);
    return (
      `warning: account ${accountId}: ${own.length} hour${own.length === 1 ? "" : "s"} later than the current hour, which no platform can have written yet (generated or test data?): ` +
      `${formatHours(own)}; kept, and counted as neither complete, missing nor behind until their hour comes`
    );
  });
}

/** `cloudunits ingest <inputs...> --db FILE`: incremental, idempotent load into a database file. */
export const ingestCommand: CommandModule<object, IngestArgs> = {
  ...commandLine("ingest"),
  builder: (yargs) =>
    yargs
      .positional("inputs", { describe: "zip files and directories of consumption files", type: "string", array: true })
      .options(options) as unknown as Argv<IngestArgs>,
  handler: async (argv) => {
    if (!(argv.batchMb > 0)) throw new UsageError(`bad --batch-mb: ${argv.batchMb} (a positive number of megabytes)`);
    const workers = workersOf(argv);
    const bar = startFilesProgress("ingesting");
    let report;
    try {
      report = await ingest(argv.inputs.map(String), {
        db: argv.db,
        replace: argv.replace,
        skipBad: argv.skipBad,
        packed: argv.packed,
        batchBytes: argv.batchMb * 1024 * 1024,
        workers,
        waitSeconds: waitOf(argv),
        onProgress: (p) =>
          bar.update({
            filesDone: p.filesRead,
            filesTotal: p.filesTotal,
            bytesDone: p.bytesRead,
            bytesTotal: p.bytesTotal,
          }),
      });
    } finally {
      bar.stop();
    }
    for (const line of loadNotes(report)) process.stderr.write(`cloudunits: ${line}\n`);
    for (const line of futureWarnings(report.futureHours)) process.stderr.write(`cloudunits: ${line}\n`);
    process.stderr.write(
      `cloudunits: ingested ${report.filesLoaded} file${report.filesLoaded === 1 ? "" : "s"} (${report.accountHours} account-hours` +
        `${report.replacedHours > 0 ? `, ${report.replacedHours} replaced` : ""}` +
        `${report.duplicates.length > 0 ? `; ${report.duplicates.length} byte-identical cop${report.duplicates.length === 1 ? "y" : "ies"} dropped` : ""})` +
        ` into ${argv.db}, which now holds ${report.totalAccountHours} account-hours\n`,
    );
  },
};
