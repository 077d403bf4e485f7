/** Seconds in an hour. */
export const HOUR_SECONDS = 3600;

/**
 * Chunk lengths of a sync, seconds: each chunk is one `getConsumption` call and one ingest. A
 * month is at most 31 days: its chunks are cut at the first of each month (UTC).
 */
export const CHUNK_SECONDS = {
  day: 24 * HOUR_SECONDS,
  week: 7 * 24 * HOUR_SECONDS,
  month: 31 * 24 * HOUR_SECONDS,
} as const;

/** A chunk length name of {@link CHUNK_SECONDS}. */
export type SyncChunk = keyof typeof CHUNK_SECONDS;

/** The first hour boundary at or after `epoch`. */
export function hourCeil(epoch: number): number {
  return Math.ceil(epoch / HOUR_SECONDS) * HOUR_SECONDS;
}

/** Monday 1970-01-05T00:00Z: chunk boundaries fall on UTC midnights, and weeks start on Mondays. */
const FIRST_MONDAY_EPOCH = 4 * 24 * HOUR_SECONDS;

/**
 * `[startEpoch, endEpoch)` (hour-aligned) cut into consecutive half-open chunks that end on
 * UTC midnights (day), Mondays 00:00 UTC (week) or the first of a month 00:00 UTC (month), so
 * reruns ask the service the same questions.
 */
export function syncChunks(
  startEpoch: number,
  endEpoch: number,
  chunkSeconds: number,
): { startEpoch: number; endEpoch: number }[] {
  const chunks: { startEpoch: number; endEpoch: number }[] = [];
  for (let from = startEpoch; from < endEpoch;) {
    const next =
      chunkSeconds === CHUNK_SECONDS.month
        ? nextMonthEpoch(from)
        : FIRST_MONDAY_EPOCH + (Math.floor((from - FIRST_MONDAY_EPOCH) / chunkSeconds) + 1) * chunkSeconds;
    const to = Math.min(endEpoch, next);
    chunks.push({ startEpoch: from, endEpoch: to });
    from = to;
  }
  return chunks;
}

/** The first of the month after the one `epoch` is in, 00:00 UTC. */
function nextMonthEpoch(epoch: number): number {
  const d = new Date(epoch * 1000);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000;
}
