/**
 * Dates and hours as a customer reads them on an invoice (`1 Oct 2026`, `15 Oct 2026 03:00 UTC`),
 * always in UTC and in English month names, so that a document renders the same words wherever
 * and whenever it is rendered. The data keeps epoch seconds and ISO 8601; these are words only.
 */

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const DAY = 86_400;

/** A day as `1 Oct 2026` (UTC). */
export function dayWords(epochSeconds: number): string {
  const d = new Date(epochSeconds * 1000);
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** A date `YYYY-MM-DD` as `1 Oct 2026`. */
export function dateWords(isoDate: string): string {
  return dayWords(Date.parse(`${isoDate}T00:00:00Z`) / 1000);
}

/** An hour (or any instant) as `15 Oct 2026 03:00 UTC`. */
export function hourWords(epochSeconds: number): string {
  return `${dayWords(epochSeconds)} ${clock(epochSeconds)} UTC`;
}

function clock(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().slice(11, 16);
}

/**
 * A half-open period `[start, end)` as a reader says it: whole days by their first and last
 * day (`1 Oct 2026 – 31 Oct 2026`, the end day included; one day alone: `1 Oct 2026`); other
 * periods by their instants (`1 Oct 2026 00:00 – 15 Oct 2026 12:00 UTC`, up to the end; an end at
 * midnight as `24:00` of the day before).
 */
export function periodWords(start: number, end: number): string {
  if (start % DAY === 0 && end % DAY === 0) {
    const first = dayWords(start);
    const last = dayWords(end - DAY);
    return first === last ? first : `${first} – ${last}`;
  }
  // an end at midnight is the end of the day before: `31 Oct 2026 24:00`
  const [endDay, endClock] = end % DAY === 0 ? [dayWords(end - DAY), "24:00"] : [dayWords(end), clock(end)];
  const endText = endDay === dayWords(start) ? endClock : `${endDay} ${endClock}`;
  return `${dayWords(start)} ${clock(start)} – ${endText} UTC`;
}
