import { describe, expect, it } from "vitest";
import { CHUNK_SECONDS, syncChunks } from "../../src/sync/syncChunks.js";

const at = (iso: string) => Date.parse(iso) / 1000;
const iso = (epoch: number) => new Date(epoch * 1000).toISOString().slice(0, 16);

describe("syncChunks", () => {
  it.each([
    ["day", "2026-10-30T05:00Z", "2026-11-02T00:00Z", ["2026-10-30T05:00", "2026-10-31T00:00", "2026-11-01T00:00"]],
    ["week", "2026-10-01T00:00Z", "2026-10-15T00:00Z", ["2026-10-01T00:00", "2026-10-05T00:00", "2026-10-12T00:00"]], // Mondays
    ["month", "2026-01-15T03:00Z", "2026-03-02T00:00Z", ["2026-01-15T03:00", "2026-02-01T00:00", "2026-03-01T00:00"]], // calendar months
    ["month", "2026-12-01T00:00Z", "2027-01-01T00:00Z", ["2026-12-01T00:00"]],
  ] as const)("cuts %s chunks of [%s, %s) at the boundaries", (chunk, from, to, starts) => {
    const chunks = syncChunks(at(from), at(to), CHUNK_SECONDS[chunk]);
    expect(chunks.map((c) => iso(c.startEpoch))).toEqual(starts);
    expect(chunks.at(-1)!.endEpoch).toBe(at(to));
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.startEpoch).toBe(chunks[i - 1]!.endEpoch);
  });
});
