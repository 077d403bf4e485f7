import { isoUtc } from "../base/time.js";

const DAY = 86400;

/**
 * A period `[start, end)` as a reader takes it: whole days by their first and last day,
 * `2026-10-01 to 2026-10-14` (UTC); otherwise by its hours, `2026-10-15T12:00:00Z to 2026-10-20T00:00:00Z (end excluded)`.
 */
export function periodText(period: { start: number; end: number }): string {
  if (period.start % DAY === 0 && period.end % DAY === 0) {
    const first = isoUtc(period.start).slice(0, 10);
    const last = isoUtc(period.end - DAY).slice(0, 10);
    return first === last ? first : `${first} to ${last}`;
  }
  return `${isoUtc(period.start)} to ${isoUtc(period.end)} (end excluded)`;
}

/** A period `[start, end)` as its two UTC instants, half-open: `[2026-10-15T12:00:00Z, 2026-10-20T00:00:00Z)`, whatever its hours. */
export function halfOpenUtc(period: { start: number; end: number }): string {
  return `[${isoUtc(period.start)}, ${isoUtc(period.end)})`;
}
