import type { DuckDBConnection } from "@duckdb/node-api";
import { BillingEngine } from "../billing/billingEngine.js";
import type { HourlyRows } from "../billing/hourlyRows.js";
import { cutsWithin } from "../billing/cuts.js";
import { linesOf, partsOf } from "../billing/engineLines.js";
import type { BillingLine, PeriodPart } from "../billing/lines.js";
import type { Level } from "../billing/levels.js";
import type { ResolvedBillingOptions } from "../billing/billingOptions.js";
import { warehouseFacts } from "../billing/warehouseFacts.js";

/** One pass of the billing engine over a warehouse's hours `[start, end)` (one account, some, or all). */
export interface UsagePassRequest {
  start: number;
  end: number;
  accountId?: number;
  accountIds?: readonly number[];
  /**
   * Also bill the hours from `start` on as a period of their own (cut at `splitAt`, where
   * prices change), as `billingPass` bills them: a month to date's invoices from the pass
   * that reads the weeks before it too.
   */
  billed?: { start: number; splitAt: readonly number[] };
  options: ResolvedBillingOptions;
  /**
   * The levels whose lines an hour needs (the environment's and the accounts' are always
   * given): the engine leaves the others out (less work per machine). Default every level.
   */
  levelsAt?: (hourEpoch: number) => readonly Level[];
  /** The lines of each hour as rows of numbers, hours ascending (see `HourlyRows` for their order). */
  onHour: (rows: HourlyRows) => void;
  /**
   * The most machine rows a window of the read holds (several days while they fit; a day alone
   * may pass it); default `warehouseFacts`'. Fewer, larger windows cost fewer queries and
   * decompress a stored segment once where it spans days (docs/performance.md, "alerts").
   */
  windowRows?: number;
}

/** The account lines of `request.billed`'s period, and of its parts when it is cut. */
export interface BilledAccounts {
  lines: BillingLine[];
  parts: PeriodPart[] | undefined;
}

/**
 * Reads the hours of a period once through the billing engine, giving each hour's lines at
 * every level as the engine makes them (not made into report lines: they are many), and the
 * account lines of the part of the period asked to be billed (`billed`). Every figure is
 * billing's own, to the bit; the hours are read as `hourlyLines` reads them.
 */
export async function usagePass(
  connection: DuckDBConnection,
  request: UsagePassRequest,
): Promise<BilledAccounts | undefined> {
  const { units, cuRollup } = request.options;
  const { start, end, billed } = request;
  const period = { start: billed?.start ?? start, end };
  const splitAt = cutsWithin(billed?.splitAt, period);
  const earlier = new BillingEngine(units, cuRollup, { rows: request.onHour });
  const later =
    billed === undefined ? undefined : new BillingEngine(units, cuRollup, { rows: request.onHour }, false, splitAt);
  let earlierOpen = true;
  const params = {
    start,
    end,
    ...(request.accountId === undefined ? {} : { accountId: request.accountId }),
    ...(request.accountIds === undefined ? {} : { accountIds: request.accountIds }),
  };
  let hour = Number.NaN;
  let kept: readonly Level[] | undefined;
  for await (const facts of warehouseFacts(connection, params, units.externalNicType, request.windowRows)) {
    if (facts.hourEpoch !== hour && request.levelsAt !== undefined) {
      hour = facts.hourEpoch;
      const levels = request.levelsAt(hour);
      if (levels !== kept) {
        kept = levels;
        // the period's lines read are the billed period's accounts': no other level is summed
        earlier.keepLevels(levels, []);
        later?.keepLevels(levels, ["account"]);
      }
    }
    if (later === undefined || facts.hourEpoch < period.start) {
      earlier.add(facts);
      continue;
    }
    if (earlierOpen) {
      earlier.finish(); // its last hour's lines, before the billed period's first
      earlierOpen = false;
    }
    later.add(facts);
  }
  if (earlierOpen) earlier.finish();
  if (later === undefined) return undefined;
  const lines = later.finish();
  return {
    lines: linesOf(lines, request.options, ["account"]),
    parts: partsOf(later, period, splitAt, request.options, ["account"]),
  };
}
