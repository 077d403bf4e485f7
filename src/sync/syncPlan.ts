import type { HourRange } from "../base/period.js";
import { HOUR_SECONDS } from "./syncChunks.js";

/**
 * Hours of the look-back window, by default: each run asks again for every hour of the last
 * three days it does not hold. The platform writes an hour some time after it ends, later
 * when a location is slow; three days cover a weekend of a stalled aggregator, and asking
 * costs nothing when nothing is missing (held hours are not asked). Past it, an hour never
 * written is "missing", named once, and asked again on the slower cadence of
 * {@link DEFAULT_ASK_MISSING_EVERY_HOURS} until it leaves the retention.
 */
export const DEFAULT_LOOK_BACK_HOURS = 72;

/**
 * How long the platform keeps its hours, by default: two months (61 days, the longest two
 * consecutive months), in hours. A missing hour is asked for until it is older than this, then
 * given up as "lost at source", said by the run that gives it up and listed by `status` and
 * `check` for good.
 */
export const DEFAULT_RETENTION_HOURS = 61 * 24;

/**
 * How often, by default, a run asks again for the missing hours older than the look-back: once
 * a day (the first run whose end is a day or more after the last that asked). A day's wait
 * costs an hour that the platform writes late by days no more than a day, and asking is one
 * download per run of missing hours (a day's chunk at most) per account, once a day, nothing when
 * none is missing. A run that finds the platform writing again after a stall longer than the
 * look-back asks them at once (see planAccount).
 */
export const DEFAULT_ASK_MISSING_EVERY_HOURS = 24;

/**
 * Hours of the settle window, by default: each run downloads the last three hours again,
 * held or not, so an hour the platform rewrote replaces the one held. Its cost is three
 * extra hours of download per account and run (an unchanged hour is compared by its hash and
 * changes nothing), against the hour or two after which the platform's rewrites are seen.
 */
export const DEFAULT_SETTLE_HOURS = 3;

export type { HourRange } from "../base/period.js";

/** What {@link planHours} needs to know of one account. */
export interface PlanInput {
  /** First hour of the run's new hours: the account's `synced_until_epoch`, or `--since`. */
  fromEpoch: number;
  /** End of the hours asked, exclusive: the current hour's start, or `--until`. */
  untilEpoch: number;
  /** Hours before this are never asked again (where the account's syncs began); undefined: no bound. */
  floorEpoch: number | undefined;
  lookBackHours: number;
  settleHours: number;
  /** Which hours of `[lookBackStart, fromEpoch)` the warehouse holds. */
  held: (hourEpoch: number) => boolean;
}

/** The first hour the look-back window reaches back to. */
function lookBackStart(input: Pick<PlanInput, "untilEpoch" | "floorEpoch" | "lookBackHours">): number {
  return Math.max(input.untilEpoch - input.lookBackHours * HOUR_SECONDS, input.floorEpoch ?? Number.NEGATIVE_INFINITY);
}

/**
 * The hours one run asks for, as ascending ranges: the new hours `[fromEpoch, untilEpoch)`;
 * before them, every hour of the look-back window not held, and every hour of the settle
 * window. The same state and clock give the same questions.
 */
export function planHours(input: PlanInput): HourRange[] {
  const ranges: HourRange[] = [];
  const add = (startEpoch: number, endEpoch: number) => {
    const last = ranges.at(-1);
    if (last && last.endEpoch === startEpoch) last.endEpoch = endEpoch;
    else ranges.push({ startEpoch, endEpoch });
  };
  const settleStart = input.untilEpoch - input.settleHours * HOUR_SECONDS;
  const againEnd = Math.min(input.fromEpoch, input.untilEpoch);
  for (let h = lookBackStart(input); h < againEnd; h += HOUR_SECONDS) {
    if (h >= settleStart || !input.held(h)) add(h, h + HOUR_SECONDS);
  }
  if (input.fromEpoch < input.untilEpoch) add(input.fromEpoch, input.untilEpoch);
  return ranges;
}
