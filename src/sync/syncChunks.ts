/** Seconds in an hour. */
export const HOUR_SECONDS = 3600;

/** Chunk lengths of a sync, seconds: each chunk is one `getConsumption` call and one ingest. */
export const CHUNK_SECONDS = { day: 24 * HOUR_SECONDS, week: 7 * 24 * HOUR_SECONDS } as const;

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
 * UTC midnights (day) or Mondays 00:00 UTC (week), so reruns ask the service the same questions.
 */
export function syncChunks(startEpoch: number, endEpoch: number, chunkSeconds: number): { startEpoch: number; endEpoch: number }[] {
  const chunks: { startEpoch: number; endEpoch: number }[] = [];
  for (let from = startEpoch; from < endEpoch; ) {
    const to = Math.min(endEpoch, FIRST_MONDAY_EPOCH + (Math.floor((from - FIRST_MONDAY_EPOCH) / chunkSeconds) + 1) * chunkSeconds);
    chunks.push({ startEpoch: from, endEpoch: to });
    from = to;
  }
  return chunks;
}
