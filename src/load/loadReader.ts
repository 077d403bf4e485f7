import type { BadFileError } from "../base/errors.js";
import { readAccountHours, type AccountHourReader } from "../input/readAccountHours.js";
import type { AccountHourSelection, ReadProgress } from "../input/types.js";

/** A load's reader, with what the loader needs of it. */
export interface LoadReader {
  reader: AccountHourReader;
  /** Bad files the reader found, filled while iterating. */
  badFiles: BadFileError[];
  /** The inputs' total size, known once they are indexed (0 before). */
  bytesTotal: () => number;
}

/**
 * The reader of a load's inputs (`ingest`, an in-memory warehouse): bad files are collected
 * rather than thrown, and tree files are left unread, to be read where they are decoded.
 */
export function loadReader(
  inputs: string[],
  options: {
    packed?: boolean;
    select?: AccountHourSelection;
    inputNames?: readonly string[];
    onProgress?: (progress: ReadProgress) => void;
    streamAfterBytes?: number;
    order?: "account" | "hour";
  },
): LoadReader {
  const badFiles: BadFileError[] = [];
  let bytesTotal = 0;
  const reader = readAccountHours(inputs, {
    packed: options.packed,
    select: options.select,
    inputNames: options.inputNames,
    onBadFile: (error) => badFiles.push(error),
    deferTreeReads: true,
    streamAfterBytes: options.streamAfterBytes,
    order: options.order,
    onProgress: (progress) => {
      bytesTotal = progress.bytesTotal;
      options.onProgress?.(progress);
    },
  });
  return { reader, badFiles, bytesTotal: () => bytesTotal };
}
