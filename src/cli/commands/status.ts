import type { Argv, CommandModule } from "yargs";
import { StaleWarehouseError, UsageError } from "../../base/errors.js";
import { missingCount, type AccountStatus, type HourSpan, type WarehouseStatus } from "../../sync/warehouseStatus.js";
import type { RegisterDrift } from "../../store/registerDrift.js";
import { formatHours, hourRangesJson } from "../../sync/formatHours.js";
import { isoUtc } from "../../base/time.js";
import { DEFAULT_LOOK_BACK_HOURS } from "../../sync/syncPlan.js";
import { WAIT_OPTION, waitOf, WAREHOUSE_OPTION } from "../inputs.js";
import { commandLine } from "./index.js";

interface StatusArgs {
  db: string;
  maxLag?: number;
  maxMissing: number;
  format: "text" | "json";
  wait?: number;
}

const options = {
  db: WAREHOUSE_OPTION,
  "max-lag": { type: "number", requiresArg: true, describe: "exit 7 when an account's last complete hour is more than this many hours behind the current hour" },
  "max-missing": { type: "number", default: 0, requiresArg: true, describe: "exit 7 when an account has more missing and lost hours than this" },
  format: { choices: ["text", "json"] as const, default: "text" as const, describe: "output format" },
  wait: WAIT_OPTION,
} as const;

const iso = (epoch: number | null) => (epoch === null ? null : isoUtc(epoch));
const spanText = (s: HourSpan) => (s.hours === 1 ? isoUtc(s.fromEpoch) : `${isoUtc(s.fromEpoch)}..${isoUtc(s.toEpoch)} (${s.hours} h)`);
const spanJson = (s: HourSpan) => ({ from: isoUtc(s.fromEpoch), to: isoUtc(s.toEpoch), hours: s.hours });
const count = (list: readonly HourSpan[]) => list.reduce((sum, s) => sum + s.hours, 0);
const listed = (list: readonly HourSpan[]) => `${count(list)} h${list.length > 0 ? `: ${list.map(spanText).join(", ")}` : ""}`;

/** The last sync's result as a person reads it: never "up to date" beside missing hours. */
function resultText(a: AccountStatus): string {
  const result = a.lastSync?.result ?? null;
  if (result === null) return "-";
  if (result === "up-to-date") return missingCount(a) > 0 || a.notYetSynced ? "nothing new" : "up to date";
  return result === "waiting" ? "nothing new, hours not written yet" : result;
}

function accountText(a: AccountStatus): string[] {
  const lines = [`account ${a.accountId}${a.name ? ` (${a.name})` : ""}: complete until ${iso(a.completeUntilEpoch) ?? "-"}, ${a.lagHours ?? "-"} h behind`];
  if (a.lastSync) lines.push(`  last sync: ${iso(a.lastSync.atEpoch) ?? "-"}, ${resultText(a)}${a.lastSync.error ? `: ${a.lastSync.error}` : ""}`);
  if (a.notYetSynced) lines.push(`  not yet synced: ${spanText(a.notYetSynced)}`);
  lines.push(`  missing: ${listed(a.missing)}`);
  if (a.insideLookBack.length > 0) lines.push(`    of which inside the last sync's ${a.lastSync?.lookBackHours ?? DEFAULT_LOOK_BACK_HOURS}-hour look-back, asked again by every sync: ${listed(a.insideLookBack)}`);
  if (a.lost.length > 0) lines.push(`  lost at source (never written within the platform's retention): ${listed(a.lost)}`);
  if (a.late.length > 0) lines.push(`  arrived late: ${listed(a.late)}`);
  if (a.rewritten.length > 0) lines.push(`  rewritten: ${listed(a.rewritten)}`);
  if (a.future.length > 0) lines.push(`  later than the current hour (not counted): ${listed(a.future)}`);
  return lines;
}

/** The lines of the issued invoices the warehouse now disagrees with: which hours changed, and what to run. */
function driftText(drift: readonly RegisterDrift[]): string[] {
  if (drift.length === 0) return [];
  const lines = [`issued invoices the warehouse now disagrees with: ${drift.length} (\`invoices issue\` says by how much; \`invoices correct --number N\` corrects one)`];
  for (const d of drift) {
    const changes = ([["arrived late", d.late], ["rewritten", d.rewritten], ["no longer held", d.gone]] as const)
      .filter(([, hours]) => hours.length > 0)
      .map(([what, hours]) => `${hours.length} h ${what}: ${formatHours(hours)}`);
    lines.push(`  ${d.number} (account ${d.accountId}, ${isoUtc(d.start).slice(0, 7)}, issued ${d.issueDate}): ${changes.join("; ")}`);
  }
  return lines;
}

function statusJson(s: WarehouseStatus, drift: readonly RegisterDrift[]) {
  return {
    db: s.db,
    sizeBytes: s.sizeBytes,
    currentHour: isoUtc(s.currentHourEpoch),
    period: s.period && { first: isoUtc(s.period.firstHourEpoch), last: isoUtc(s.period.lastHourEpoch) },
    accountHours: s.accountHours,
    accounts: s.accounts.map((a) => ({
      accountId: a.accountId,
      name: a.name,
      firstHour: iso(a.firstHourEpoch),
      lastHour: iso(a.lastHourEpoch),
      completeUntil: iso(a.completeUntilEpoch),
      lagHours: a.lagHours,
      notYetSynced: a.notYetSynced && spanJson(a.notYetSynced),
      missing: a.missing.map(spanJson),
      insideLookBack: a.insideLookBack.map(spanJson),
      lost: a.lost.map(spanJson),
      future: a.future.map(spanJson),
      late: a.late.map(spanJson),
      rewritten: a.rewritten.map(spanJson),
      lastSync: a.lastSync && {
        at: iso(a.lastSync.atEpoch), result: a.lastSync.result, error: a.lastSync.error, syncedUntil: isoUtc(a.lastSync.syncedUntilEpoch),
        lookBackHours: a.lastSync.lookBackHours, retentionHours: a.lastSync.retentionHours,
      },
    })),
    invoicesToCorrect: drift.map((d) => ({
      number: d.number, accountId: d.accountId, start: isoUtc(d.start), end: isoUtc(d.end), issueDate: d.issueDate,
      late: hourRangesJson(d.late), rewritten: hourRangesJson(d.rewritten), gone: hourRangesJson(d.gone),
    })),
  };
}

/** The accounts beyond `--max-lag` and `--max-missing`, as the error that exits 7; undefined when none. */
function alertOf(status: WarehouseStatus, argv: StatusArgs): StaleWarehouseError | undefined {
  const stale = argv.maxLag === undefined ? [] : status.accounts.filter((a) => a.lagHours !== null && a.lagHours > argv.maxLag!).map((a) => ({ accountId: a.accountId, lagHours: a.lagHours! }));
  const incomplete = status.accounts.filter((a) => missingCount(a) > argv.maxMissing)
    .map((a) => ({ accountId: a.accountId, missingHours: count(a.missing), lostHours: count(a.lost) }));
  return stale.length + incomplete.length > 0 ? new StaleWarehouseError(stale, argv.maxLag, incomplete, argv.maxMissing) : undefined;
}

/** `cloudunits status --db FILE`: how fresh the warehouse is, per account; exit 7 past `--max-lag` or `--max-missing`. */
export const statusCommand: CommandModule<object, StatusArgs> = {
  ...commandLine("status"),
  builder: (yargs) => yargs.options(options) as unknown as Argv<StatusArgs>,
  handler: async (argv) => {
    if (argv.maxLag !== undefined && !(Number.isFinite(argv.maxLag) && argv.maxLag >= 0)) throw new UsageError(`bad --max-lag ${String(argv.maxLag)}: use a number of hours, 0 or more`);
    if (!(Number.isFinite(argv.maxMissing) && argv.maxMissing >= 0)) throw new UsageError(`bad --max-missing ${String(argv.maxMissing)}: use a number of hours, 0 or more`);
    const { openDatabaseFile } = await import("../../store/openDatabaseFile.js");
    const { warehouseStatus } = await import("../../sync/warehouseStatus.js");
    const { registerDrift } = await import("../../store/registerDrift.js");
    const { instance, connection } = await openDatabaseFile(argv.db, { readOnly: true, waitSeconds: waitOf(argv) });
    let status: WarehouseStatus;
    let drift: RegisterDrift[];
    try {
      status = await warehouseStatus({ connection, db: argv.db });
      drift = await registerDrift(connection);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    if (argv.format === "json") process.stdout.write(`${JSON.stringify(statusJson(status, drift), null, 2)}\n`);
    else {
      const period = status.period ? `${isoUtc(status.period.firstHourEpoch)}..${isoUtc(status.period.lastHourEpoch)}` : "no hours";
      const lines = [`${status.db}: ${status.sizeBytes} bytes, ${status.accountHours} account-hours, ${period}; current hour ${isoUtc(status.currentHourEpoch)}`];
      for (const a of status.accounts) lines.push(...accountText(a));
      lines.push(...driftText(drift));
      process.stdout.write(`${lines.join("\n")}\n`);
    }
    const alert = alertOf(status, argv);
    if (alert) throw alert;
  },
};
