import { setFlagsFromString } from "node:v8";

/**
 * DuckDB's allocator (the jemalloc it links, configured by this environment variable when its
 * library loads) returns freed pages to the system at once instead of keeping them for seconds:
 * a long ingest of many small files frees and allocates in every commit and checkpoint, and the
 * pages kept were most of how its peak grew with the files (docs/performance.md, "Ingest, fourth
 * pass"). A value the user set is kept.
 */
const RETURN_FREED_PAGES = "dirty_decay_ms:0,muzzy_decay_ms:0";

/**
 * Sizes the process's memory for `ingest`, before DuckDB's library is first loaded (it reads its
 * allocator's settings then): DuckDB's freed pages go back at once (above), and V8's old
 * generation grows by its live data (doubles) before a full collection instead of up to 4×: what
 * it held between two was mostly garbage promoted in passing (a batch's manifest rows, the staged
 * columns queued), about 20 MiB live at 90 days of hourly files against a heap of 115. The young
 * generation keeps its size (keeping it small, as billing from files does, took a quarter more
 * CPU). Only the command-line tool calls it: the settings are the process's.
 */
export function sizeMemoryForIngest(): void {
  process.env.DUCKDB_JE_MALLOC_CONF ??= RETURN_FREED_PAGES;
  setFlagsFromString("--heap-growing-percent=100");
}
