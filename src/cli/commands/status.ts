import type { Argv, CommandModule } from "yargs";
import { StaleWarehouseError, UsageError } from "../../base/errors.js";
import type { AccountStatus, HourSpan, WarehouseStatus } from "../../sync/warehouseStatus.js";
import type { RegisterDrift } from "../../store/registerDrift.js";
import { formatHours, hourRangesJson } from "../../sync/formatHours.js";
import { isoUtc } from "../../base/time.js";
import { WAIT_OPTION, waitOf, WAREHOUSE_OPTION } from "../inputs.js";
import { commandLine } from "./index.js";

interface StatusArgs {
  db: string;
  maxLag?: number;
  format: "text" | "json";
  wait?: number;
}

const options = {
  db: WAREHOUSE_OPTION,
  "max-lag": { type: "number", requiresArg: true, describe: "exit 7 when an account's last complete hour is more than this many hours behind the current hour" },
  format: { choices: ["text", "json"] as const, default: "text" as const, describe: "output format" },
  wait: WAIT_OPTION,
} as const;

const iso = (epoch: number | null) => (epoch === null ? null : isoUtc(epoch));
const spanText = (s: HourSpan) => (s.hours === 1 ? isoUtc(s.fromEpoch) : `${isoUtc(s.fromEpoch)}..${isoUtc(s.toEpoch)} (${s.hours} h)`);
const spanJson = (s: HourSpan) => ({ from: isoUtc(s.fromEpoch), to: isoUtc(s.toEpoch), hours: s.hours });
const count = (list: readonly HourSpan[]) => list.reduce((sum, s) => sum + s.hours, 0);

function accountText(a: AccountStatus): string[] {
  const lines = [`account ${a.accountId}${a.name ? ` (${a.name})` : ""}: complete until ${iso(a.completeUntilEpoch) ?? "-"}, ${a.lagHours ?? "-"} h behind`];
  if (a.lastSync) lines.push(`  last sync: ${iso(a.lastSync.atEpoch) ?? "-"}, ${a.lastSync.result ?? "-"}${a.lastSync.error ? `: ${a.lastSync.error}` : ""}`);
  if (a.notYetSynced) lines.push(`  not yet synced: ${spanText(a.notYetSynced)}`);
  lines.push(`  missing: ${count(a.missing)} h${a.missing.length > 0 ? `: ${a.missing.map(spanText).join(", ")}` : ""}`);
  if (a.late.length > 0) lines.push(`  arrived late: ${count(a.late)} h: ${a.late.map(spanText).join(", ")}`);
  if (a.rewritten.length > 0) lines.push(`  rewritten: ${count(a.rewritten)} h: ${a.rewritten.map(spanText).join(", ")}`);
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
      late: a.late.map(spanJson),
      rewritten: a.rewritten.map(spanJson),
      lastSync: a.lastSync && { at: iso(a.lastSync.atEpoch), result: a.lastSync.result, error: a.lastSync.error, syncedUntil: isoUtc(a.lastSync.syncedUntilEpoch) },
    })),
    invoicesToCorrect: drift.map((d) => ({
      number: d.number, accountId: d.accountId, start: isoUtc(d.start), end: isoUtc(d.end), issueDate: d.issueDate,
      late: hourRangesJson(d.late), rewritten: hourRangesJson(d.rewritten), gone: hourRangesJson(d.gone),
    })),
  };
}

/** `cloudunits status --db FILE`: how fresh the warehouse is, per account; exit 7 past `--max-lag`. */
export const statusCommand: CommandModule<object, StatusArgs> = {
  ...commandLine("status"),
  builder: (yargs) => yargs.options(options) as unknown as Argv<StatusArgs>,
  handler: async (argv) => {
    if (argv.maxLag !== undefined && !(Number.isFinite(argv.maxLag) && argv.maxLag >= 0)) throw new UsageError(`bad --max-lag ${String(argv.maxLag)}: use a number of hours, 0 or more`);
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
    if (argv.maxLag !== undefined) {
      const stale = status.accounts.filter((a) => a.lagHours !== null && a.lagHours > argv.maxLag!).map((a) => ({ accountId: a.accountId, lagHours: a.lagHours! }));
      if (stale.length > 0) throw new StaleWarehouseError(stale, argv.maxLag);
    }
  },
};
