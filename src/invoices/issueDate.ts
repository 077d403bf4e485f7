import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";

const DAY = 86_400;

/** `YYYY-MM-DD` of an instant, UTC. */
export const dayOf = (epochSeconds: number): string => isoUtc(epochSeconds).slice(0, 10);

/**
 * The issue date of documents issued now for a period: the one given (checked `YYYY-MM-DD`), else
 * today (UTC). Not before the period's last day (an invoice is not dated before what it bills), and
 * not after today (UTC, of `nowEpoch`): numbers follow dates, so a date ahead would block its year.
 */
export function issueDateFor(
  given: string | undefined,
  period: { end: number },
  nowEpoch: number,
  what = "issueDate:",
): string {
  const date = given ?? dayOf(nowEpoch);
  const valid =
    /^\d{4}-\d{2}-\d{2}$/.test(date) &&
    !Number.isNaN(Date.parse(`${date}T00:00:00Z`)) &&
    dayOf(Date.parse(`${date}T00:00:00Z`) / 1000) === date;
  if (!valid)
    throw new UsageError(`bad ${what} "${date}": use a date YYYY-MM-DD, e.g. ${dayOf(nowEpoch)}`, { code: "BAD_TIME" });
  const lastDay = dayOf(period.end - DAY);
  if (date < lastDay)
    throw new UsageError(
      `${what} ${date} is before ${lastDay}, the last day billed: an invoice is dated on or after what it bills`,
      { code: "BAD_TIME" },
    );
  // a number goes with its date: one dated ahead would refuse every document of its year dated before it
  const today = dayOf(nowEpoch);
  if (date > today)
    throw new UsageError(
      `${what} ${date} is after today, ${today} (UTC): a document is dated on the day it is issued or before`,
      { code: "BAD_TIME" },
    );
  return date;
}
