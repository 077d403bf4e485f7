import type { Argv, CommandModule } from "yargs";
import { documentWhose } from "../../invoices/document/customers.js";
import { InvoicesToCorrectError, RegisterBrokenError, StaleWarehouseError, UsageError } from "../../base/errors.js";
import { alarmingHours, type AccountStatus, type HourSpan, type WarehouseStatus } from "../../sync/warehouseStatus.js";
import type { RegisterDrift } from "../../invoices/register/registerDrift.js";
import { formatHours, hourRangesJson } from "../../sync/formatHours.js";
import { isoUtc, parseTime } from "../../base/time.js";
import { DEFAULT_LOOK_BACK_HOURS } from "../../sync/syncPlan.js";
import { WAIT_OPTION, waitOf, WAREHOUSE_OPTION } from "../inputs.js";
import { commandLine } from "./index.js";

interface StatusArgs {
  db: string;
  maxLag?: number;
  maxMissing?: number;
  acceptLost?: string[];
  accountId?: number[];
  format: "text" | "json";
  wait?: number;
}

const options = {
  db: WAREHOUSE_OPTION,
  "max-lag": {
    type: "number",
    requiresArg: true,
    describe: "exit 7 when an account's last complete hour is more than this many hours behind the current hour",
  },
  // refused, said why: a count of hours accepted also hid the next hours lost or missing
  "max-missing": { type: "number", hidden: true, requiresArg: true },
  "accept-lost": {
    type: "string",
    array: true,
    nargs: 1,
    requiresArg: true,
    describe:
      "accept this hour lost at source (repeat for several): recorded in the warehouse, listed, no longer exit 7",
  },
  "account-id": {
    type: "number",
    array: true,
    nargs: 1,
    requiresArg: true,
    describe:
      "with --accept-lost: only for this account (repeat for several; default: every account that lost the hour)",
  },
  format: { choices: ["text", "json"] as const, default: "text" as const, describe: "output format" },
  wait: WAIT_OPTION,
} as const;

const iso = (epoch: number | null) => (epoch === null ? null : isoUtc(epoch));
const spanText = (s: HourSpan) =>
  s.hours === 1 ? isoUtc(s.fromEpoch) : `${isoUtc(s.fromEpoch)}..${isoUtc(s.toEpoch)} (${s.hours} h)`;
const spanJson = (s: HourSpan) => ({ from: isoUtc(s.fromEpoch), to: isoUtc(s.toEpoch), hours: s.hours });
const count = (list: readonly HourSpan[]) => list.reduce((sum, s) => sum + s.hours, 0);
const listed = (list: readonly HourSpan[]) =>
  `${count(list)} h${list.length > 0 ? `: ${list.map(spanText).join(", ")}` : ""}`;

/** The last sync's result as a person reads it: never "up to date" beside missing hours. */
function resultText(a: AccountStatus): string {
  const result = a.lastSync?.result ?? null;
  if (result === null) return "-";
  if (result === "up-to-date")
    return a.missing.length + a.lost.length > 0 || a.notYetSynced ? "nothing new" : "up to date";
  if (result === "running") return "running (no result recorded yet)";
  return result === "waiting" ? "nothing new, hours not written yet" : result;
}

function accountText(a: AccountStatus): string[] {
  const lines = [
    `account ${a.accountId}${a.name ? ` (${a.name})` : ""}: complete until ${iso(a.completeUntilEpoch) ?? "-"}, ${a.lagHours ?? "-"} h behind`,
  ];
  if (a.lastSync)
    lines.push(
      `  last sync: ${iso(a.lastSync.atEpoch) ?? "-"}, ${resultText(a)}${a.lastSync.error ? `: ${a.lastSync.error}` : ""}`,
    );
  if (a.notYetSynced) lines.push(`  not yet synced: ${spanText(a.notYetSynced)}`);
  lines.push(`  missing: ${listed(a.missing)}`);
  if (a.insideLookBack.length > 0)
    lines.push(
      `    of which inside the last sync's ${a.lastSync?.lookBackHours ?? DEFAULT_LOOK_BACK_HOURS}-hour look-back, asked again by every sync: ${listed(a.insideLookBack)}`,
    );
  if (a.lost.length > 0)
    lines.push(`  lost at source (never written within the platform's retention): ${listed(a.lost)}`);
  if (a.acceptedLost.length > 0) lines.push(`    of which accepted (--accept-lost): ${listed(a.acceptedLost)}`);
  if (a.late.length > 0) lines.push(`  arrived late: ${listed(a.late)}`);
  if (a.rewritten.length > 0) lines.push(`  rewritten: ${listed(a.rewritten)}`);
  if (a.future.length > 0) lines.push(`  later than the current hour (not counted): ${listed(a.future)}`);
  return lines;
}

/** The lines of the issued invoices the warehouse now disagrees with: which hours changed, and what to run. */
function driftText(drift: readonly RegisterDrift[]): string[] {
  if (drift.length === 0) return [];
  const lines = [
    `issued invoices the warehouse now disagrees with: ${drift.length} (\`invoices issue\` says by how much; \`invoices correct --number N\` corrects one)`,
  ];
  for (const d of drift) {
    const changes = (
      [
        ["arrived late", d.late],
        ["rewritten", d.rewritten],
        ["no longer held", d.gone],
      ] as const
    )
      .filter(([, hours]) => hours.length > 0)
      .map(([what, hours]) => `${hours.length} h ${what}: ${formatHours(hours)}`);
    lines.push(
      `  ${d.number} (${documentWhose(d)}, ${isoUtc(d.start).slice(0, 7)}, issued ${d.issueDate}): ${changes.join("; ")}`,
    );
  }
  return lines;
}

/** The register's disagreements with its chain, after the report: `invoices verify` says the same. */
function registerText(problems: readonly string[]): string[] {
  if (problems.length === 0) return [];
  return [
    `the invoice register was changed outside cloudunits: ${problems.length} problem${problems.length === 1 ? "" : "s"} (\`invoices verify\` lists the same; restore the warehouse from a backup)`,
    ...problems.map((p) => `  ${p}`),
  ];
}

function statusJson(s: WarehouseStatus, drift: readonly RegisterDrift[], registerProblems: readonly string[]) {
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
      acceptedLost: a.acceptedLost.map(spanJson),
      future: a.future.map(spanJson),
      late: a.late.map(spanJson),
      rewritten: a.rewritten.map(spanJson),
      lastSync: a.lastSync && {
        at: iso(a.lastSync.atEpoch),
        result: a.lastSync.result,
        error: a.lastSync.error,
        syncedUntil: iso(a.lastSync.syncedUntilEpoch),
        lookBackHours: a.lastSync.lookBackHours,
        retentionHours: a.lastSync.retentionHours,
      },
    })),
    invoicesToCorrect: drift.map((d) => ({
      number: d.number,
      accountId: d.accountId,
      start: isoUtc(d.start),
      end: isoUtc(d.end),
      issueDate: d.issueDate,
      late: hourRangesJson(d.late),
      rewritten: hourRangesJson(d.rewritten),
      gone: hourRangesJson(d.gone),
    })),
    registerProblems,
  };
}

/**
 * What exits 10 (the register changed outside cloudunits: first, as nothing is issued or handed out
 * until it is restored), else 7 (an empty warehouse, an account beyond `--max-lag`, a missing hour, a
 * lost hour not accepted: any issued invoice to correct named too) or else 9 (issued invoices to
 * correct); undefined when nothing.
 */
function alertOf(
  status: WarehouseStatus,
  drift: readonly RegisterDrift[],
  registerProblems: readonly string[],
  argv: StatusArgs,
): RegisterBrokenError | StaleWarehouseError | InvoicesToCorrectError | undefined {
  if (registerProblems.length > 0) return new RegisterBrokenError(registerProblems, true);
  const stale =
    argv.maxLag === undefined
      ? []
      : status.accounts
          .filter((a) => a.lagHours !== null && a.lagHours > argv.maxLag!)
          .map((a) => ({ accountId: a.accountId, lagHours: a.lagHours! }));
  const incomplete = status.accounts
    .map((a) => ({ accountId: a.accountId, ...alarmingHours(a) }))
    .filter((a) => a.missingHours + a.lostHours > 0);
  const empty = status.accountHours === 0;
  const invoicesToCorrect = drift.map((d) => d.number);
  if (empty || stale.length + incomplete.length > 0)
    return new StaleWarehouseError({ stale, maxLagHours: argv.maxLag, incomplete, empty, invoicesToCorrect });
  return invoicesToCorrect.length > 0 ? new InvoicesToCorrectError(invoicesToCorrect) : undefined;
}

/** The hours of `--accept-lost`, epoch seconds (a time not on the hour is refused: it names no hour). */
function acceptedHoursOf(argv: StatusArgs): number[] {
  return (argv.acceptLost ?? []).map((text) => {
    const epoch = parseTime(text, "accept-lost");
    if (epoch % 3600 !== 0)
      throw new UsageError(`bad --accept-lost ${text}: name the hour's start (e.g. 2026-10-01T05:00Z)`);
    return epoch;
  });
}

/** `cloudunits status --db FILE`: how fresh the warehouse is, per account; exit 10, 7 or 9 (see `alertOf`). */
export const statusCommand: CommandModule<object, StatusArgs> = {
  ...commandLine("status"),
  builder: (yargs) => yargs.options(options) as unknown as Argv<StatusArgs>,
  handler: async (argv) => {
    if (argv.maxLag !== undefined && !(Number.isFinite(argv.maxLag) && argv.maxLag >= 0))
      throw new UsageError(`bad --max-lag ${String(argv.maxLag)}: use a number of hours, 0 or more`);
    if (argv.maxMissing !== undefined) {
      throw new UsageError(
        "--max-missing is no longer taken: a count of hours accepted also hid the next hour lost or missing; accept each lost hour by name with --accept-lost HOUR (recorded in the warehouse)",
      );
    }
    if (argv.accountId !== undefined && argv.acceptLost === undefined)
      throw new UsageError("--account-id goes with --accept-lost: status reports every account");
    const accepting = acceptedHoursOf(argv);
    const { openDatabaseFile } = await import("../../store/openDatabaseFile.js");
    const { warehouseStatus } = await import("../../sync/warehouseStatus.js");
    const { registerDrift } = await import("../../invoices/register/registerDrift.js");
    const { verifyRegister } = await import("../../invoices/register/registerChain.js");
    // accepting writes (one statement); otherwise read-only, beside a running sync
    const { instance, connection } = await openDatabaseFile(argv.db, {
      readOnly: accepting.length === 0,
      create: false,
      waitSeconds: waitOf(argv),
    });
    let status: WarehouseStatus;
    let drift: RegisterDrift[];
    let registerProblems: string[];
    try {
      if (accepting.length > 0) {
        const { acceptLostHours } = await import("../../sync/acceptLost.js");
        const accepted = await acceptLostHours(connection, accepting, argv.accountId);
        for (const a of accepted)
          process.stderr.write(
            `cloudunits: account ${a.accountId}: ${isoUtc(a.hourEpoch)} accepted as lost at source\n`,
          );
      }
      status = await warehouseStatus({ connection, db: argv.db });
      drift = await registerDrift(connection);
      registerProblems = (await verifyRegister(connection)).problems;
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
    if (argv.format === "json")
      process.stdout.write(`${JSON.stringify(statusJson(status, drift, registerProblems), null, 2)}\n`);
    else {
      const period = status.period
        ? `${isoUtc(status.period.firstHourEpoch)}..${isoUtc(status.period.lastHourEpoch)}`
        : "no hours";
      const lines = [
        `${status.db}: ${status.sizeBytes} bytes, ${status.accountHours} account-hours, ${period}; current hour ${isoUtc(status.currentHourEpoch)}`,
      ];
      for (const a of status.accounts) lines.push(...accountText(a));
      lines.push(...driftText(drift), ...registerText(registerProblems));
      process.stdout.write(`${lines.join("\n")}\n`);
    }
    const alert = alertOf(status, drift, registerProblems, argv);
    if (alert) throw alert;
  },
};
