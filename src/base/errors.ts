/**
 * The errors a user of cloudunits can hit. Every class has a stable `code` of the catalog
 * (./errorCodes.ts, which gives each its exit code and meaning), and every
 * message names the file or value at fault and what to do, in the library's words: an option as a
 * script writes it (`skipBad: true`), never a flag (the CLI says `--skip-bad`: src/cli/flagWords.ts). The CLI maps them to exit
 * codes (docs/cli.md): UsageError → 2, BadFileError, ConflictError, ImpossibleValuesError, MissingHoursError, EmptyPeriodError and NoHoursHeldError → 3,
 * FetchError → 4, WarehouseBusyError → 6, StaleWarehouseError, ActiveAlertsError, OverdueDocumentsError and DeliveryFailedError → 7,
 * EnvironmentError → 8, IssuedInvoiceDiffersError and InvoicesToCorrectError → 9, RegisterBrokenError → 10.
 */

import type { ErrorCode, ErrorCodeWithExit } from "./errorCodes.js";
import type { ImpossibleValue } from "./impossibleValue.js";
import type { Exact } from "../billing/exact.js";

/** Base class: every error thrown on purpose by cloudunits. */
export class CloudunitsError extends Error {
  /** A stable, machine-readable code of {@link ERROR_CODES}, e.g. `CAPNP_OUT_OF_BOUNDS`. */
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A bad command-line argument or library option (exit 2). */
export class UsageError extends CloudunitsError {
  declare readonly code: ErrorCodeWithExit<2>;

  constructor(message: string, options?: { cause?: unknown; code?: ErrorCodeWithExit<2> }) {
    super(options?.code ?? "USAGE", message, options);
  }
}

/**
 * An input file that cannot be read: malformed, truncated, unsafe, or at an impossible
 * path (exit 3). `file` is the display name: a path, or `archive.zip!entry/name`.
 */
export class BadFileError extends CloudunitsError {
  /** The file at fault: a path, or `archive!entry` for a zip entry. */
  readonly file: string;
  /** The reason without the file name, e.g. `segment 0 declares 212 words, has 98`. */
  readonly reason: string;
  declare readonly code: ErrorCodeWithExit<3>;

  constructor(code: ErrorCodeWithExit<3>, file: string, reason: string, options?: { cause?: unknown }) {
    super(code, `${file}: ${reason}`, options);
    this.file = file;
    this.reason = reason;
  }
}

/** Two different files for the same account-hour (exit 3). */
export class ConflictError extends CloudunitsError {
  /** The display names of every file involved. */
  readonly files: string[];
  readonly accountId: number;
  readonly hourEpoch: number;

  constructor(accountId: number, hourEpoch: number, files: string[], hint = "") {
    super(
      "CONFLICT",
      `account ${accountId}, hour ${new Date(hourEpoch * 1000).toISOString().replace(".000Z", "Z")}: different files for the same account-hour: ${files.join(", ")}${hint ? `; ${hint}` : ""}`,
    );
    this.files = files;
    this.accountId = accountId;
    this.hourEpoch = hourEpoch;
  }
}

/** Many bad files at once: thrown after every input was read, naming them all (exit 3). */
export class BadInputError extends CloudunitsError {
  readonly errors: (BadFileError | ConflictError)[];

  constructor(errors: (BadFileError | ConflictError)[]) {
    const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
    const conflicts = errors.filter((e): e is ConflictError => e instanceof ConflictError);
    const bad = errors.length - conflicts.length;
    const files = conflicts.reduce((n, c) => n + c.files.length, 0);
    // a conflict's line names two or more files: the head counts files, not lines
    const head = [
      ...(bad > 0 ? [plural(bad, "bad input file", "bad input files")] : []),
      ...(conflicts.length > 0
        ? [
            `${plural(conflicts.length, "account-hour", "account-hours")} with different files (${plural(files, "file", "files")})`,
          ]
        : []),
    ].join(" and ");
    super(
      "BAD_INPUT",
      `${head} (use skipBad: true to go on without them):\n` + errors.map((e) => `  ${e.message}`).join("\n"),
    );
    this.errors = errors;
  }
}

/**
 * Impossible values (docs/warehouse.md: NaN, ±Infinity, negative) in fields a computation uses
 * (exit 3): the message names each one's file, entity and field.
 */
export class ImpossibleValuesError extends CloudunitsError {
  readonly values: ImpossibleValue[];

  /** `lines`: one per value, naming its file, entity and field (see `describeImpossible`); `what`: where they are and what to do. */
  constructor(
    values: ImpossibleValue[],
    lines: readonly string[],
    what = "in billed fields (use skipBad: true to count them as 0)",
  ) {
    super(
      "IMPOSSIBLE_VALUE",
      `${values.length} impossible value${values.length === 1 ? "" : "s"} (NaN, infinite or negative) ${what}:\n` +
        lines.map((line) => `  ${line}`).join("\n"),
    );
    this.values = values;
  }
}

/** `fetch` could not authenticate or download (exit 4). Messages never hold a secret. */
export class FetchError extends CloudunitsError {
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** How long the server asked to wait before trying again (its `Retry-After`), ms, when it said. */
  readonly retryAfterMs: number | undefined;
  declare readonly code: ErrorCodeWithExit<4>;

  constructor(
    code: ErrorCodeWithExit<4>,
    message: string,
    options?: { cause?: unknown; status?: number; retryAfterMs?: number },
  ) {
    super(code, message, options);
    this.status = options?.status;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/**
 * `sync` went through every account but could not bring some up to date (exit 4). Each
 * failed account is named with its error; the others were synced.
 */
export class SyncIncompleteError extends FetchError {
  /** The accounts that failed, with what stopped them. */
  readonly failures: { accountId: number; error: Error }[];

  constructor(failures: { accountId: number; error: Error }[], accountCount: number) {
    super(
      "SYNC_INCOMPLETE",
      `${failures.length} of ${accountCount} account${accountCount === 1 ? "" : "s"} could not be synced (the others were; run sync again to retry):\n` +
        failures
          .map(
            (f) =>
              `  account ${f.accountId}: ${f.error.message}${"code" in f.error ? ` [${String(f.error.code)}]` : ""}`,
          )
          .join("\n"),
    );
    this.failures = failures;
  }
}

/** `alerts` found active alerts (exit 7): a budget threshold crossed, an anomaly, a machine new or gone. */
export class ActiveAlertsError extends CloudunitsError {
  /** How many alerts are active. */
  readonly active: number;

  /** `unsent`: why the alerts could not be posted to the webhook, when they could not (the exit code still says they are active). */
  constructor(active: number, unsent?: FetchError) {
    super(
      "ALERTS_ACTIVE",
      `${active} alert${active === 1 ? " is" : "s are"} active (listed above)${unsent ? `; they were not posted: ${unsent.message}` : ""}`,
      unsent ? { cause: unsent } : undefined,
    );
    this.active = active;
  }
}

/** `reconcile` found our bill and the platform's different beyond the tolerance (exit 5). */
export class ReconcileDifferenceError extends CloudunitsError {
  /** Figures that differ and entities present on one side only. */
  readonly differences: number;

  constructor(differences: number, message: string) {
    super("RECONCILE_DIFFERS", message);
    this.differences = differences;
  }
}

/**
 * The warehouse file stayed locked by another process beyond the wait (exit 6). DuckDB lets
 * one process write a file or several read it; `holder` is what DuckDB says of the process
 * holding it (its program and PID), when it says.
 */
export class WarehouseBusyError extends CloudunitsError {
  readonly file: string;
  /** e.g. `/usr/bin/node (PID 8640)`. */
  readonly holder: string | undefined;

  constructor(file: string, holder: string | undefined, waitedSeconds: number, options?: { cause?: unknown }) {
    super(
      "DB_BUSY",
      `${file} is busy: another process holds it${holder ? ` (${holder})` : ""}, still after waiting ${waitedSeconds} s; ` +
        "run again when it is done, or wait longer with waitSeconds: SECONDS",
      options,
    );
    this.file = file;
    this.holder = holder;
  }
}

/** What the machine refused, in the words of {@link EnvironmentError}'s message. */
export const ENVIRONMENT_FAILURES = {
  DISK_FULL: {
    verb: "write",
    what: "no space left on the device",
    todo: "free some space (or raise the quota) and run again",
  },
  READ_ONLY: {
    verb: "write",
    what: "the file system is read-only",
    todo: "make it writable, or give a path on a writable file system",
  },
  PERMISSION_DENIED: {
    verb: "use",
    what: "permission denied",
    todo: "give this user access to it and its folder, or give another path",
  },
} as const satisfies Record<ErrorCodeWithExit<8>, { verb: string; what: string; todo: string }>;

/** A kind of failure of the environment, see {@link ENVIRONMENT_FAILURES}. */
export type EnvironmentFailure = keyof typeof ENVIRONMENT_FAILURES;

/**
 * The environment refused a write (exit 8): the disk is full (or a quota reached), the file
 * system is read-only, or permission is denied. Not a bug, not bad usage: the message says
 * what and where, once, and that nothing committed was lost (writes are transactions, or
 * temporary files renamed into place only when whole).
 */
export class EnvironmentError extends CloudunitsError {
  /** The file or folder that could not be written. */
  readonly file: string;
  readonly failure: EnvironmentFailure;

  /** `kept`: what is left as it was, e.g. "the transaction in flight was rolled back". */
  constructor(failure: EnvironmentFailure, file: string, kept: string, options?: { cause?: unknown }) {
    const { verb, what, todo } = ENVIRONMENT_FAILURES[failure];
    super(failure, `cannot ${verb} ${file}: ${what}; nothing committed was lost (${kept}): ${todo}`, options);
    this.file = file;
    this.failure = failure;
  }
}

/** What `status` found that needs a human (see {@link StaleWarehouseError}). */
export interface WarehouseAlarm {
  /** The accounts beyond `--max-lag`, with their lag in hours. */
  stale: { accountId: number; lagHours: number }[];
  maxLagHours: number | undefined;
  /** The accounts with missing hours, or lost hours not accepted (`status --accept-lost`), with how many of each. */
  incomplete: { accountId: number; missingHours: number; lostHours: number }[];
  /** True when the warehouse holds no hour at all (a first sync stopped before its first commit). */
  empty?: boolean;
  /** The numbers of the issued invoices the warehouse now disagrees with. */
  invoicesToCorrect?: string[];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The parts of a {@link WarehouseAlarm} as `status` says them, joined with "; ". */
function alarmText(alarm: WarehouseAlarm): string {
  const { stale, incomplete, invoicesToCorrect = [] } = alarm;
  const hours = (m: WarehouseAlarm["incomplete"][number]) =>
    [
      ...(m.missingHours > 0 ? [`${m.missingHours} h missing`] : []),
      ...(m.lostHours > 0 ? [`${m.lostHours} h lost at source, not accepted`] : []),
    ].join(", ");
  return [
    ...(alarm.empty
      ? ["the warehouse holds no hour: no sync has committed one yet (run sync with since: T, and look at its output)"]
      : []),
    ...(stale.length > 0
      ? [
          `${plural(stale.length, "account is", "accounts are")} more than ${alarm.maxLagHours} h behind: ` +
            stale.map((s) => `account ${s.accountId} (${s.lagHours} h)`).join(", "),
        ]
      : []),
    ...(incomplete.length > 0
      ? [
          `${plural(incomplete.length, "account has", "accounts have")} missing or lost hours (accept a lost one with --accept-lost HOUR): ` +
            incomplete.map((m) => `account ${m.accountId} (${hours(m)})`).join(", "),
        ]
      : []),
    ...(invoicesToCorrect.length > 0
      ? [
          `${plural(invoicesToCorrect.length, "issued invoice", "issued invoices")} the warehouse now disagrees with (correct with correctInvoice({ number })): ${invoicesToCorrect.join(", ")}`,
        ]
      : []),
  ].join("; ");
}

/**
 * `status`: the warehouse holds no hour, some account is staler than `--max-lag` allows, or has a
 * missing hour or a lost hour not accepted (exit 7); issued invoices it now disagrees with, when
 * there are any too, are named in the same message.
 */
export class StaleWarehouseError extends CloudunitsError {
  readonly stale: WarehouseAlarm["stale"];
  readonly incomplete: WarehouseAlarm["incomplete"];
  readonly invoicesToCorrect: string[];

  constructor(alarm: WarehouseAlarm) {
    super("STALE", alarmText(alarm));
    this.stale = alarm.stale;
    this.incomplete = alarm.incomplete;
    this.invoicesToCorrect = alarm.invoicesToCorrect ?? [];
  }
}

/**
 * `status`: issued invoices the warehouse now disagrees with (hours arrived late, rewritten or no
 * longer held since they were issued), and nothing else to alarm on (exit 9).
 */
export class InvoicesToCorrectError extends CloudunitsError {
  /** The numbers of the invoices. */
  readonly numbers: string[];

  constructor(numbers: string[]) {
    super(
      "INVOICES_TO_CORRECT",
      alarmText({ stale: [], maxLagHours: undefined, incomplete: [], invoicesToCorrect: numbers }),
    );
    this.numbers = numbers;
  }
}

/**
 * `invoices issue` or `correct`: hours of the month are not held for accounts to invoice (exit 3).
 * Nothing was issued; `--accept-missing` issues without them and prints them on the invoice.
 */
export class MissingHoursError extends CloudunitsError {
  /** The accounts refused, with the hours of the month not held (epoch seconds of each hour, ascending). */
  readonly accounts: { accountId: number; hours: number[] }[];

  constructor(accounts: { accountId: number; hours: number[] }[], month: string, lines: readonly string[]) {
    super(
      "MISSING_HOURS",
      `${month}: ${accounts.length} account${accounts.length === 1 ? " lacks" : "s lack"} hours, so nothing was issued ` +
        "(an hour missing may still come: sync or ingest it; one lost at source never will; acceptMissing: true invoices without them, the hours printed on the invoice):\n" +
        lines.map((line) => `  ${line}`).join("\n"),
    );
    this.accounts = accounts;
  }
}

/**
 * A period in which the inputs hold no hour at all (of the accounts asked): not a bill of zeros,
 * which would read as "nothing to bill" where a sync stalled or the wrong month was asked (exit 3).
 * The message names the hours the inputs do hold.
 */
export class EmptyPeriodError extends CloudunitsError {
  /** The period asked, epoch seconds, half-open. */
  readonly period: { start: number; end: number };
  /** The hours the inputs hold (of the accounts asked), from the first hour's start to the last one's end; null when none. */
  readonly held: { start: number; end: number } | null;

  constructor(period: { start: number; end: number }, held: { start: number; end: number } | null, whose = "") {
    const holds =
      held === null ? "they hold no hour at all" : `they hold [${isoText(held.start)}, ${isoText(held.end)})`;
    super(
      "EMPTY_PERIOD",
      `no hours held in ${periodName(period)}${whose}: the inputs hold none of it, so there is nothing to bill; ${holds}`,
    );
    this.period = period;
    this.held = held;
  }
}

const isoText = (epoch: number) => new Date(epoch * 1000).toISOString().replace(".000Z", "Z");

/** A period as a reader names it: `2026-11` for a whole UTC month, else its half-open ISO span. */
function periodName({ start, end }: { start: number; end: number }): string {
  const first = new Date(start * 1000);
  const next = Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 1) / 1000;
  const wholeMonth = first.getUTCDate() === 1 && start % 86400 === 0 && end === next;
  return wholeMonth ? isoText(start).slice(0, 7) : `[${isoText(start)}, ${isoText(end)})`;
}

/**
 * `forecast` of a month the warehouse holds no hour of (exit 3): nothing to project from, said
 * instead of a projection of zeros; the message says what the warehouse does hold and how far
 * behind it is.
 */
export class NoHoursHeldError extends CloudunitsError {
  readonly month: string;

  constructor(month: string, held: string) {
    super(
      "NO_HOURS_HELD",
      `no hour of ${month} is held: ${held}; nothing to forecast (sync the warehouse, or forecast a month it holds)`,
    );
    this.month = month;
  }
}

/**
 * `invoices issue`: the warehouse now gives other figures for invoices already issued (hours arrived
 * late or were rewritten, another price list or tax): nothing was changed (exit 9). Each is corrected
 * with `invoices correct`.
 */
export class IssuedInvoiceDiffersError extends CloudunitsError {
  /** The issued invoices that differ, with the amounts due (gross) issued and computed now, at the currency's decimals. */
  readonly differences: { number: string; accountId: number; issued: Exact; now: Exact; currency: string }[];

  constructor(differences: IssuedInvoiceDiffersError["differences"], lines: readonly string[]) {
    super(
      "ISSUED_DIFFERS",
      `${differences.length} issued invoice${differences.length === 1 ? "" : "s"} would now have other figures; nothing was changed ` +
        "(an issued invoice is never recomputed: correct it with correctInvoice({ number, reason })):\n" +
        lines.map((line) => `  ${line}`).join("\n"),
    );
    this.differences = differences;
  }
}

/**
 * The invoice register disagrees with its chain (exit 10): a record or a file changed after it was
 * recorded, a document removed, a number missing, a link broken (docs/billing.md#the-chain).
 * Nothing was handed out, counted or numbered.
 */
export class RegisterBrokenError extends CloudunitsError {
  /** What was found, one line each, naming the document (or link) and what changed. */
  readonly problems: string[];

  /** `listed`: the problems were printed already (by `invoices verify`): the message only counts them. */
  constructor(problems: readonly string[], listed = false) {
    super(
      "REGISTER_BROKEN",
      `the invoice register was changed outside cloudunits: ${problems.length} problem${problems.length === 1 ? "" : "s"}${listed ? " (listed above)" : ""}; ` +
        "nothing is handed out or numbered until it is restored from a backup (verifyRegister() names every one)" +
        (listed ? "" : `:\n${problems.map((p) => `  ${p}`).join("\n")}`),
    );
    this.problems = [...problems];
  }
}

/** For switches that must be exhaustive. */
export function assertNever(value: never, what = "value"): never {
  throw new Error(`unexpected ${what}: ${String(value)}`);
}

/** `invoices overdue` found overdue documents (exit 7: cron mails the list). */
export class OverdueDocumentsError extends CloudunitsError {
  readonly overdue: number;

  constructor(overdue: number) {
    super("OVERDUE", `${overdue} document${overdue === 1 ? " is" : "s are"} overdue (listed above)`);
    this.overdue = overdue;
  }
}

/** `invoices send` could not deliver every document (exit 7): the next run tries those again. */
export class DeliveryFailedError extends CloudunitsError {
  /** The numbers not delivered. */
  readonly numbers: string[];

  constructor(numbers: string[]) {
    super(
      "DELIVERY_FAILED",
      `${numbers.length} document${numbers.length === 1 ? " was" : "s were"} not delivered (listed above): the next run of invoices send tries again`,
    );
    this.numbers = numbers;
  }
}
