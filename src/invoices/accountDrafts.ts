import type { DuckDBConnection } from "@duckdb/node-api";
import { EmptyPeriodError, UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import { checkKnownInWarehouse } from "../base/unknownIds.js";
import { bill } from "../billEntry/bill.js";
import { heldSpan } from "../billEntry/heldSpan.js";
import { invoiceOf, type Invoice } from "../billing/invoice.js";
import type { DocumentBasis } from "./document/invoiceDocument.js";
import { emptyAccountLine } from "../billing/lines.js";
import { nameOf } from "../billing/names.js";
import { heldHourFiles, type HeldHour } from "./register/heldHourFiles.js";
import type { IssueInputs } from "./issueInputs.js";

/** An account's figures of a period as the warehouse gives them today, and the hours they come from. */
export interface AccountDraft {
  accountId: number;
  invoice: Invoice;
  /** The hours of the period held, with their files' SHA-256. */
  held: HeldHour[];
  /** The hours of the period not held (epoch seconds), ascending. */
  missingHours: number[];
}

const HOUR = 3600;

/**
 * Today's figures of accounts over a period: `accountIds`, or every account holding an hour of it
 * (and `alsoAccounts`, accounts the register has a document of for it), from one `bill` of the
 * warehouse. Refuses (ImpossibleValuesError, exit 3) a period holding impossible values in billed
 * fields; a period none of the accounts asked holds an hour of is an EmptyPeriodError (exit 3), and
 * one account asked that holds no hour of it, beside others that do, a UsageError.
 */
export async function accountDrafts(
  connection: DuckDBConnection,
  period: { start: number; end: number },
  inputs: IssueInputs,
  select: { accountIds?: readonly number[]; alsoAccounts?: readonly number[] } = {},
): Promise<AccountDraft[]> {
  const held = await heldHourFiles(connection, period);
  const what = `[${isoUtc(period.start)}, ${isoUtc(period.end)})`;
  const asked = select.accountIds ?? [...held.keys()];
  if (!asked.some((id) => held.has(id)) && (select.alsoAccounts ?? []).length === 0) {
    // not a month of zeros: a stalled sync or a mistyped month must not read as "nothing to invoice"
    for (const id of select.accountIds ?? []) await checkKnownInWarehouse(connection, "account", id); // a typo'd id is unknown (exit 2), not empty
    const whose =
      select.accountIds === undefined ? "" : ` for account${asked.length === 1 ? "" : "s"} ${asked.join(", ")}`;
    throw new EmptyPeriodError(
      period,
      await heldSpan({ connection }, asked.length === 1 ? asked[0] : undefined),
      whose,
    );
  }
  for (const id of select.accountIds ?? []) {
    if (!held.has(id) && !(select.alsoAccounts ?? []).includes(id)) {
      const known = [...held.keys()];
      throw new UsageError(
        `account ${id} holds no hour of ${what}: nothing to invoice (accounts with hours: ${known.length > 0 ? known.join(", ") : "none"})`,
        { code: "UNKNOWN_ID" },
      );
    }
  }
  const accountIds = [...new Set(select.accountIds ?? [...held.keys(), ...(select.alsoAccounts ?? [])])].sort(
    (a, b) => a - b,
  );
  // every account's figures in one bill (an impossible value in a billed field refuses it, exit 3)
  const { report } = await bill({
    source: { connection },
    period,
    prices: inputs.prices,
    rules: { units: inputs.units, cuRollup: inputs.cuRollup },
    produce: { levels: ["account"] },
    allowEmpty: true, // an account of the register that holds no hour now is compared as zeros
  });
  const invoices = new Map(report.invoices!.map((i) => [i.accountId, i]));
  const drafts: AccountDraft[] = [];
  for (const accountId of accountIds) {
    const hours = held.get(accountId) ?? [];
    const present = new Set(hours.map((h) => h.hourEpoch));
    const missingHours: number[] = [];
    for (let hour = period.start; hour < period.end; hour += HOUR) if (!present.has(hour)) missingHours.push(hour);
    // an account of the register that holds no hour now: its lines of 0
    const invoice =
      invoices.get(accountId) ??
      invoiceOf(
        emptyAccountLine(accountId, nameOf(report.options.names, "account", accountId)),
        inputs.prices,
        report.options.units,
        { ...period, parts: [] },
      );
    drafts.push({ accountId, invoice, held: hours, missingHours });
  }
  return drafts;
}

/** What a document of a draft was computed from. */
export function basisOf(draft: AccountDraft, inputs: IssueInputs): DocumentBasis {
  return {
    hours: draft.held.map((h) => h.hourEpoch),
    hourSha256: draft.held.map((h) => h.filesSha256),
    pricesSha256: inputs.pricesSha256,
    statementSha256: inputs.statementSha256,
    rules: inputs.rules,
  };
}
