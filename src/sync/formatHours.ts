import { isoUtc } from "../base/time.js";
import { hourRanges } from "../base/period.js";

/** Hours (epochs, ascending) as the ranges of consecutive hours, e.g. `2026-10-03T08:00:00Z..2026-10-03T10:00:00Z` (both hours included), comma-separated. */
export function formatHours(hours: readonly number[]): string {
  return hourRanges(hours)
    .map((r) =>
      r.endEpoch - r.startEpoch === 3600
        ? isoUtc(r.startEpoch)
        : `${isoUtc(r.startEpoch)}..${isoUtc(r.endEpoch - 3600)}`,
    )
    .join(", ");
}

/** Hours as JSON ranges, `{ from, to }` ISO times, both hours included. */
export function hourRangesJson(hours: readonly number[]): { from: string; to: string; hours: number }[] {
  return hourRanges(hours).map((r) => ({
    from: isoUtc(r.startEpoch),
    to: isoUtc(r.endEpoch - 3600),
    hours: (r.endEpoch - r.startEpoch) / 3600,
  }));
}
