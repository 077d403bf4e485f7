import { UsageError } from "./errors.js";

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/**
 * The magnitude from which a number given as epoch seconds is surely epoch milliseconds:
 * 1e11 seconds is the year 5138, 1e11 milliseconds is March 1973.
 */
export const MILLISECONDS_FROM = 1e11;

/**
 * Returns `value` when it is whole epoch seconds; throws a UsageError naming `what` otherwise:
 * code `BAD_TIME` for a fraction or a number beyond safe integers, `MILLISECOND_EPOCH` for a
 * number of ±1e11 or more (epoch milliseconds given as seconds would bill nothing, silently).
 */
export function checkEpochSeconds(value: number, what = "time"): number {
  if (!Number.isSafeInteger(value))
    throw new UsageError(`bad ${what}: ${String(value)} (epoch seconds, a whole number)`, { code: "BAD_TIME" });
  if (Math.abs(value) >= MILLISECONDS_FROM) {
    const seconds = Math.trunc(value / 1000);
    const asSeconds = Math.abs(seconds) < MILLISECONDS_FROM ? `: give ${seconds} (${isoUtc(seconds)})` : "";
    throw new UsageError(
      `bad ${what}: ${value} is epoch milliseconds, not seconds (epoch seconds are below 1e11, the year 5138)${asSeconds}`,
      { code: "MILLISECOND_EPOCH" },
    );
  }
  return value;
}

/**
 * Parses a time given as epoch seconds (`1790812800`) or ISO 8601 (`2026-10-01`,
 * `2026-10-01T00:00Z`, `2026-10-01T02:00+02:00`); no zone means UTC.
 * Returns epoch seconds. Throws a UsageError naming `what` and the value: code
 * `MILLISECOND_EPOCH` for epoch milliseconds (a number of ±1e11 or more, see `checkEpochSeconds`),
 * `BAD_TIME` for anything else that is not a time.
 */
export function parseTime(value: string | number, what = "time"): number {
  if (typeof value === "number") return checkEpochSeconds(value, what);
  const text = value.trim();
  if (/^-?\d+$/.test(text)) return checkEpochSeconds(Number(text), what);
  const m = ISO.exec(text);
  if (m) {
    const [, y, mo, d, h = "0", mi = "0", s = "0", frac, zone] = m;
    const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)] as const;
    const ms = Date.UTC(...fields);
    const back = new Date(ms);
    const valid =
      back.getUTCFullYear() === fields[0] &&
      back.getUTCMonth() === fields[1] &&
      back.getUTCDate() === fields[2] &&
      fields[3] < 24 &&
      fields[4] < 60 &&
      fields[5] < 60;
    if (valid && (frac === undefined || /^0+$/.test(frac))) {
      let offsetSeconds = 0;
      if (zone && zone.toUpperCase() !== "Z") {
        const sign = zone.startsWith("-") ? -1 : 1;
        const digits = zone.slice(1).replace(":", "");
        offsetSeconds = sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2)) * 60);
      }
      return ms / 1000 - offsetSeconds;
    }
  }
  throw new UsageError(
    `bad ${what}: "${value}" (use epoch seconds or ISO 8601 such as 2026-10-01 or 2026-10-01T00:00Z, whole seconds)`,
    { code: "BAD_TIME" },
  );
}

/** `2026-10-01T00:00:00Z` for epoch seconds: ISO 8601 UTC, whole seconds (a fraction is cut), the form of every time cloudunits prints. */
export function isoUtc(epochSeconds: number): string {
  return new Date(Math.floor(epochSeconds) * 1000).toISOString().replace(".000Z", "Z");
}

/**
 * The half-open period of a calendar month in UTC: `monthPeriod("2026-10")` is
 * `{ start: 2026-10-01T00:00Z, end: 2026-11-01T00:00Z }` in epoch seconds, so consecutive
 * months never share an hour. Throws a UsageError naming `what` for anything but `YYYY-MM`.
 */
export function monthPeriod(month: string, what = "month"): { start: number; end: number } {
  const m = /^(\d{4})-(\d{2})$/.exec(month.trim());
  const year = Number(m?.[1]);
  const index = Number(m?.[2]) - 1;
  if (!m || index < 0 || index > 11) throw new UsageError(`bad ${what}: "${month}" (use YYYY-MM, e.g. 2026-10)`);
  return { start: Date.UTC(year, index, 1) / 1000, end: Date.UTC(year, index + 1, 1) / 1000 };
}
