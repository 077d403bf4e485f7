import { setFlagsFromString } from "node:v8";

/**
 * Sizes V8's heaps for a run whose live data is small whatever its length, like billing files
 * as they stream: the young generation stays at its first size instead of growing (V8 grew it
 * to 8 MiB over a long run), and the old generation grows by 20% of its live data instead of
 * up to 4× (most of what it held was garbage promoted in passing): a lower peak in the same time
 * (docs/performance.md). Not for heap-heavy work: the XLSX Hourly sheet took longer so (exceljs
 * keeps objects per row). Only the command-line tool calls it (the flags are the
 * process's): both are read by V8 whenever it resizes a heap, so setting them at run time works.
 */
export function sizeHeapsForStreaming(): void {
  setFlagsFromString("--semi-space-growth-factor=1");
  setFlagsFromString("--heap-growing-percent=20");
}
