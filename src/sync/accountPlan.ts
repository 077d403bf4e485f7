import { HOUR_SECONDS, syncChunks } from "./syncChunks.js";
import { hourRanges, type HourRange } from "../base/period.js";
import { planHours } from "./syncPlan.js";
import type { AccountSyncState } from "./syncState.js";

/** The clock and windows of one run, as {@link planAccount} reads them (hours unless named otherwise). */
export interface RunWindows {
  /** End of the hours asked, exclusive: the current hour's start, or `--until`. */
  untilEpoch: number;
  /** `--since`, rounded up to the hour: every hour from it is asked again. */
  sinceEpoch: number | undefined;
  lookBackHours: number;
  settleHours: number;
  retentionHours: number;
  askMissingEveryHours: number;
  /** Days before `untilEpoch` whose held hours (before the settle window) are asked again to compare their files; 0: none. */
  verifyDays: number;
  /** Seconds per `getConsumption` call, see CHUNK_SECONDS. */
  chunkSeconds: number;
}

/** Where one account's run starts, and which of its held hours the plan must know. */
export interface AccountBounds {
  accountId: number;
  /** Hours before it are never asked again: where the account's syncs began (or `--since`). */
  floorEpoch: number;
  /** The first new hour: hours before it were asked by earlier runs. */
  newFromEpoch: number;
  /** The plan needs the hours held in `[heldFromEpoch, heldToEpoch)`. */
  heldFromEpoch: number;
  heldToEpoch: number;
}

/** What one run asks of one account, and what it needs to tell the outcome. */
export interface AccountPlan extends AccountBounds {
  /** The first hour of the look-back window, and of the platform's retention (both bounded by the floor). */
  lookBackStartEpoch: number;
  retentionStartEpoch: number;
  /** The account's first and latest hour held before the run (not later than the current hour). */
  firstHourEpoch: number | undefined;
  lastHourEpoch: number | undefined;
  /** Hours of `[heldFromEpoch, heldToEpoch)` held before the run. */
  heldBefore: ReadonlySet<number>;
  /** Hours not held that leave the look-back window in this run: those still missing after it are said once. */
  leavingLookBack: ReadonlySet<number>;
  /** True when the run asks again for the missing hours older than the look-back (their cadence was due). */
  asksMissing: boolean;
  /** The missing hours older than the look-back asked in this run (0 when not due). */
  missingAsked: number;
  /** Those it does not ask (not due): asked at once if the run finds the platform writing again after a stall. */
  deferredMissing: number[];
  /** Held hours asked again to compare their files (`verifyDays`). */
  verifiedHours: number;
  /** The chunks to download, in order. */
  chunks: HourRange[];
}

/** The hours in `[startEpoch, endEpoch)`. */
export function hoursIn(startEpoch: number, endEpoch: number): number[] {
  const hours: number[] = [];
  for (let h = startEpoch; h < endEpoch; h += HOUR_SECONDS) hours.push(h);
  return hours;
}

/**
 * Where the account's run starts: `--since` when given, for every account; else where its last
 * sync ended; else the hour after its last hour held (data loaded by `ingest`); else the
 * warehouse's first hour, so every account covers the same span. Undefined when none is known
 * (an empty warehouse without `--since`).
 */
export function accountBounds(
  accountId: number,
  state: AccountSyncState | undefined,
  warehouseFirstHourEpoch: number | undefined,
  windows: RunWindows,
): AccountBounds | undefined {
  const newFromEpoch =
    windows.sinceEpoch ??
    state?.syncedUntilEpoch ??
    (state?.lastHourEpoch === undefined ? warehouseFirstHourEpoch : state.lastHourEpoch + HOUR_SECONDS);
  if (newFromEpoch === undefined) return undefined;
  const floorEpoch = windows.sinceEpoch ?? state?.syncedFromEpoch ?? newFromEpoch;
  const { untilEpoch } = windows;
  const previousUntilEpoch = state?.syncedUntilEpoch ?? untilEpoch;
  // the earliest hour any window of this run or of the last reaches back to
  const reach = Math.min(
    untilEpoch - windows.lookBackHours * HOUR_SECONDS,
    previousUntilEpoch - windows.lookBackHours * HOUR_SECONDS,
    previousUntilEpoch - windows.retentionHours * HOUR_SECONDS,
    untilEpoch - windows.retentionHours * HOUR_SECONDS,
    untilEpoch - windows.verifyDays * 24 * HOUR_SECONDS,
  );
  const heldToEpoch = Math.min(newFromEpoch, untilEpoch);
  return {
    accountId,
    floorEpoch,
    newFromEpoch,
    heldFromEpoch: Math.min(Math.max(reach, floorEpoch), heldToEpoch),
    heldToEpoch,
  };
}

/** Ranges of the hours `again` (before `newFromEpoch`) and the new hours `[newFromEpoch, untilEpoch)`, merged, ascending. */
function rangesOf(again: ReadonlySet<number>, newFromEpoch: number, untilEpoch: number): HourRange[] {
  const ranges = hourRanges([...again].sort((a, b) => a - b));
  if (newFromEpoch < untilEpoch) {
    const last = ranges.at(-1);
    if (last && last.endEpoch === newFromEpoch) last.endEpoch = untilEpoch;
    else ranges.push({ startEpoch: newFromEpoch, endEpoch: untilEpoch });
  }
  return ranges;
}

/**
 * What one run asks of an account (the same state and clock give the same questions):
 * - the new hours, `[newFromEpoch, untilEpoch)`;
 * - every hour of the look-back window not held, and every hour of the settle window (planHours);
 * - the hours leaving the look-back window in this run, a last time before they are "missing"
 *   (after runs further apart than the look-back, the platform may have written them since);
 * - the missing hours older than the look-back, after the account's first hour held, when their
 *   cadence is due (`askMissingEveryHours` since the last run that asked them); else they wait;
 * - the hours leaving the retention in this run, a last time before they are "lost";
 * - with `verifyDays`, the held hours of those days before the settle window, to compare.
 * `held` must hold the account's hours held in `[bounds.heldFromEpoch, bounds.heldToEpoch)`.
 */
export function planAccount(
  bounds: AccountBounds,
  state: AccountSyncState | undefined,
  windows: RunWindows,
  held: ReadonlySet<number>,
): AccountPlan {
  const H = HOUR_SECONDS;
  const { floorEpoch, newFromEpoch } = bounds;
  const { untilEpoch } = windows;
  const againEnd = Math.min(newFromEpoch, untilEpoch);
  const previousUntilEpoch = state?.syncedUntilEpoch ?? untilEpoch;
  const lookBackStartEpoch = Math.max(untilEpoch - windows.lookBackHours * H, floorEpoch);
  const retentionStartEpoch = Math.max(untilEpoch - windows.retentionHours * H, floorEpoch);
  // missing hours are those after the account's first hour held (before it, it may not have existed)
  const holesFrom = state?.firstHourEpoch === undefined ? againEnd : Math.max(floorEpoch, state.firstHourEpoch);
  const notHeld = (from: number, to: number) =>
    hoursIn(Math.max(from, bounds.heldFromEpoch), Math.min(to, againEnd)).filter((h) => !held.has(h));

  const leavingLookBack = new Set(
    notHeld(Math.max(floorEpoch, previousUntilEpoch - windows.lookBackHours * H), lookBackStartEpoch),
  );
  const leavingRetention = notHeld(
    Math.max(holesFrom, previousUntilEpoch - windows.retentionHours * H),
    retentionStartEpoch,
  );
  const older = notHeld(Math.max(holesFrom, retentionStartEpoch), lookBackStartEpoch).filter(
    (h) => !leavingLookBack.has(h),
  );
  const lastAsked = state?.missingAskedUntilEpoch;
  const asksMissing =
    older.length > 0 && (lastAsked === undefined || untilEpoch - lastAsked >= windows.askMissingEveryHours * H);
  const settleStartEpoch = untilEpoch - windows.settleHours * H;
  const verified =
    windows.verifyDays > 0
      ? hoursIn(
          Math.max(floorEpoch, untilEpoch - windows.verifyDays * 24 * H, bounds.heldFromEpoch),
          Math.min(settleStartEpoch, againEnd),
        ).filter((h) => held.has(h))
      : [];

  const again = new Set<number>([...leavingLookBack, ...leavingRetention, ...(asksMissing ? older : []), ...verified]);
  for (const r of planHours({
    fromEpoch: newFromEpoch,
    untilEpoch,
    floorEpoch,
    lookBackHours: windows.lookBackHours,
    settleHours: windows.settleHours,
    held: (h) => held.has(h),
  })) {
    for (const h of hoursIn(r.startEpoch, Math.min(r.endEpoch, againEnd))) again.add(h);
  }
  const chunks = rangesOf(again, newFromEpoch, untilEpoch).flatMap((r) =>
    syncChunks(r.startEpoch, r.endEpoch, windows.chunkSeconds),
  );
  return {
    ...bounds,
    lookBackStartEpoch,
    retentionStartEpoch,
    firstHourEpoch: state?.firstHourEpoch,
    lastHourEpoch: state?.lastHourEpoch,
    heldBefore: held,
    leavingLookBack,
    asksMissing,
    missingAsked: asksMissing ? older.length : 0,
    deferredMissing: asksMissing ? [] : older,
    verifiedHours: verified.length,
    chunks,
  };
}

/**
 * The missing hours to ask at once, when a run finds the platform writing again after a stall
 * longer than the look-back: the run loaded hours, and some of the hours it did not ask (their
 * cadence not due) lie after the account's last hour held before the run, the stall. Else none.
 */
export function recoveryHours(plan: AccountPlan, accountHoursLoaded: number): number[] {
  if (accountHoursLoaded === 0) return [];
  const stalled = plan.deferredMissing.some((h) => plan.lastHourEpoch === undefined || h > plan.lastHourEpoch);
  return stalled ? plan.deferredMissing : [];
}
