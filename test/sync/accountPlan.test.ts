import { describe, expect, it } from "vitest";
import { accountBounds, planAccount, recoveryHours, type RunWindows } from "../../src/sync/accountPlan.js";
import { CHUNK_SECONDS } from "../../src/sync/syncChunks.js";
import type { AccountSyncState } from "../../src/sync/syncState.js";

const H = 3600;
const T = 1790812800; // 2026-10-01T00:00Z: hour n below is T + n h
const at = (n: number) => T + n * H;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

/** Windows of a few hours, so a case fits in a line: look-back 6, settle 2, retention 24, the older missing hours asked every 12 h. */
const WINDOWS: Omit<RunWindows, "untilEpoch"> = {
  sinceEpoch: undefined,
  lookBackHours: 6,
  settleHours: 2,
  retentionHours: 24,
  askMissingEveryHours: 12,
  verifyDays: 0,
  chunkSeconds: CHUNK_SECONDS.day,
};

interface Case {
  name: string;
  /** The run's end (hour index), the last run's end, the hours held (indices), when the older missing hours were last asked. */
  until: number;
  syncedUntil: number;
  held: number[];
  missingAskedUntil?: number;
  verifyDays?: number;
  /** The hours asked (indices), whether the older missing hours are asked, and those left for later. */
  asked: number[];
  asksMissing: boolean;
  deferred: number[];
}

// hand-worked: the new hours [syncedUntil, until); the look-back [until - 6, until) not held; the settle [until - 2, until);
// hours leaving the look-back [syncedUntil - 6, until - 6) and the retention [syncedUntil - 24, until - 24), not held, a last time;
// the hours not held in [until - 24, until - 6) after the first held hour, when 12 h have passed since they were last asked
const CASES: Case[] = [
  {
    name: "nothing missing: the new hour and the settle window",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39),
    asked: [38, 39],
    asksMissing: false,
    deferred: [],
  },
  {
    name: "a hole in the look-back: asked on every run",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39).filter((h) => h !== 35),
    asked: [35, 38, 39],
    asksMissing: false,
    deferred: [],
  },
  {
    name: "a hole leaving the look-back: asked a last time",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39).filter((h) => h !== 33),
    asked: [33, 38, 39],
    asksMissing: false,
    deferred: [],
  },
  {
    name: "an older hole, never asked since: asked",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39).filter((h) => h !== 20),
    asked: [20, 38, 39],
    asksMissing: true,
    deferred: [],
  },
  {
    name: "an older hole asked 11 h ago: left for later",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39).filter((h) => h !== 20),
    missingAskedUntil: 29,
    asked: [38, 39],
    asksMissing: false,
    deferred: [20],
  },
  {
    name: "an older hole asked 12 h ago: asked again",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39).filter((h) => h !== 20),
    missingAskedUntil: 28,
    asked: [20, 38, 39],
    asksMissing: true,
    deferred: [],
  },
  {
    name: "a hole leaving the retention: asked a last time, whatever the cadence",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39).filter((h) => h !== 15),
    missingAskedUntil: 39,
    asked: [15, 38, 39],
    asksMissing: false,
    deferred: [],
  },
  {
    name: "a hole past the retention: never asked again",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39).filter((h) => h !== 10),
    asked: [38, 39],
    asksMissing: false,
    deferred: [],
  },
  {
    name: "a stall: the hours after the last held, older than the look-back, asked on the cadence",
    until: 40,
    syncedUntil: 39,
    held: range(0, 25),
    missingAskedUntil: 36,
    asked: range(33, 40),
    asksMissing: false,
    deferred: range(25, 33),
  },
  {
    name: "verification: the held hours of a day before the settle window, again",
    until: 40,
    syncedUntil: 39,
    held: range(0, 39),
    verifyDays: 1,
    asked: range(16, 40),
    asksMissing: false,
    deferred: [],
  },
];

describe("what one run asks of an account", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const windows: RunWindows = { ...WINDOWS, untilEpoch: at(c.until), verifyDays: c.verifyDays ?? 0 };
      const state: AccountSyncState = {
        syncedUntilEpoch: at(c.syncedUntil),
        syncedFromEpoch: at(0),
        firstHourEpoch: at(Math.min(...c.held)),
        lastHourEpoch: at(Math.max(...c.held)),
        missingAskedUntilEpoch: c.missingAskedUntil === undefined ? undefined : at(c.missingAskedUntil),
      };
      const bounds = accountBounds(1, state, at(0), windows)!;
      const held = new Set(c.held.map(at).filter((h) => h >= bounds.heldFromEpoch && h < bounds.heldToEpoch));
      const plan = planAccount(bounds, state, windows, held);
      const asked = plan.chunks.flatMap((chunk) => range((chunk.startEpoch - T) / H, (chunk.endEpoch - T) / H));
      expect(asked).toEqual(c.asked);
      expect(plan.asksMissing).toBe(c.asksMissing);
      expect(plan.deferredMissing.map((h) => (h - T) / H)).toEqual(c.deferred);
    });
  }
});

describe("after a stall, the hours left for later are asked at once", () => {
  const windows: RunWindows = { ...WINDOWS, untilEpoch: at(40) };
  const plan = (held: number[]) => {
    const state: AccountSyncState = {
      syncedUntilEpoch: at(39),
      syncedFromEpoch: at(0),
      firstHourEpoch: at(0),
      lastHourEpoch: at(Math.max(...held)),
      missingAskedUntilEpoch: at(36),
    };
    const bounds = accountBounds(1, state, at(0), windows)!;
    return planAccount(bounds, state, windows, new Set(held.map(at)));
  };
  it.each([
    {
      name: "the platform writes again (the run loaded hours) after a stall past the look-back: every hour left for later",
      held: range(0, 25),
      loaded: 7,
      again: range(25, 33),
    },
    { name: "it still does not write: none, they wait for their day", held: range(0, 25), loaded: 0, again: [] },
    {
      name: "hours loaded, but the holes left for later lie before the last hour held (no stall): none",
      held: range(0, 39).filter((h) => h !== 20),
      loaded: 1,
      again: [],
    },
  ])("$name", ({ held, loaded, again }) => {
    expect(recoveryHours(plan(held), loaded).map((h) => (h - T) / H)).toEqual(again);
  });
});
