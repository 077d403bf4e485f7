import type { WarehouseStatus } from "../sync/warehouseStatus.js";
import { monthPeriod } from "../base/time.js";

/** A calendar month (UTC) the dashboard can show: `YYYY-MM` and its period `[start, end)`, epoch seconds. */
export interface MonthChoice {
  month: string;
  start: number;
  end: number;
}

/** The month `YYYY-MM` of an epoch (UTC). */
export const monthOf = (epoch: number): string => new Date(epoch * 1000).toISOString().slice(0, 7);

/** The months from the first to the last hour the warehouse holds, oldest first; the month of `nowEpoch` when it holds none. */
export function monthsOf(status: Pick<WarehouseStatus, "period"> | null, nowEpoch = Date.now() / 1000): MonthChoice[] {
  const first = status?.period?.firstHourEpoch ?? nowEpoch;
  const last = status?.period?.lastHourEpoch ?? nowEpoch;
  const out: MonthChoice[] = [];
  for (let month = monthOf(first); ; ) {
    const period = monthPeriod(month);
    out.push({ month, ...period });
    if (period.end > last) break;
    month = monthOf(period.end);
  }
  return out;
}
