import type { WarehouseStatus } from "../sync/warehouseStatus.js";
import { monthPeriod } from "../base/time.js";
import { NotFoundError } from "./notFound.js";
import { clockNow } from "../base/clock.js";

/** A calendar month (UTC) the dashboard can show: `YYYY-MM` and its period `[start, end)`, epoch seconds. */
export interface MonthChoice {
  month: string;
  start: number;
  end: number;
  /**
   * The end of the last hour held, when it falls inside the month (the month runs past the
   * data: its figures are month to date); null when the hours held reach the month's end.
   */
  heldUntil: number | null;
}

/** The month `YYYY-MM` of an epoch (UTC). */
export const monthOf = (epoch: number): string => new Date(epoch * 1000).toISOString().slice(0, 7);

/** The months from the first to the last hour held (of the warehouse, or of one entity), oldest first; the month of `nowEpoch` when none is held. */
export function monthsOf(status: Pick<WarehouseStatus, "period"> | null, nowEpoch = clockNow()): MonthChoice[] {
  const first = status?.period?.firstHourEpoch ?? nowEpoch;
  const last = status?.period?.lastHourEpoch ?? nowEpoch;
  const heldEnd = status?.period ? last + 3600 : Math.floor(nowEpoch / 3600) * 3600;
  const out: MonthChoice[] = [];
  for (let month = monthOf(first); ;) {
    const period = monthPeriod(month);
    out.push({ month, ...period, heldUntil: heldEnd > period.start && heldEnd < period.end ? heldEnd : null });
    if (period.end > last) break;
    month = monthOf(period.end);
  }
  return out;
}

/**
 * The month `month` of `months` (default: the last), or NotFoundError naming the months held:
 * a month not held is never shown as another, nor as a month of zeros. `what`: whose months
 * they are, for the message ("the warehouse", "machine 12").
 */
export function chosenMonth(months: readonly MonthChoice[], month: string | undefined, what: string): MonthChoice {
  if (month === undefined) return months.at(-1)!;
  const found = months.find((m) => m.month === month);
  if (found) return found;
  const held =
    months.length === 1 ? `the month ${months[0]!.month}` : `the months ${months[0]!.month} to ${months.at(-1)!.month}`;
  throw new NotFoundError(`no hour of ${month} in ${what}: it holds ${held}`);
}
