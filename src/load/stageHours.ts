import { createHash } from "node:crypto";
import { visitAccountHour } from "../capnp/visitAccountHour.js";
import type { DecodedAccountHour } from "../capnp/records.js";
import { BadFileError } from "../base/errors.js";
import { readDeferred } from "../input/readSource.js";
import type { AccountHour } from "../input/types.js";
import type { ColumnBatch, ColumnSelection } from "./columnBatch.js";
import { ColumnBuilder } from "./ColumnBuilder.js";
import { stageRecords } from "./stageRecords.js";
import type { ImpossibleValue } from "./impossibleValues.js";
import type { DataTable } from "./dataTables.js";
import type { HourTap, TapPlugin } from "./hourTap.js";

/** A file that could not be decoded, as plain data (it crosses from a worker). */
export interface StageError {
  /** Index of the account-hour in the staged group. */
  index: number;
  code: BadFileError["code"];
  file: string;
  reason: string;
}

/** A group of account-hours decoded and staged column by column; failed hours are left out of `batch`. */
export interface StagedGroup {
  batch: ColumnBatch;
  errors: StageError[];
  /** The hex SHA-256 of every file, by account-hour and source (failed hours included). */
  sha256: string[][];
  /** The impossible values (docs/warehouse.md) of the staged hours, staged as NULL. */
  impossible: ImpossibleValue[];
}

/**
 * The buffer this thread reads a group's files into, reused from group to group: a fresh
 * buffer per file costs its page faults every time (the decoder, the hash and the text cache
 * keep nothing of a file's bytes once it is staged).
 */
class ReadArena {
  private buffer = new Uint8Array(0);
  private used = 0;

  /** Starts a group: the previous group's bytes may be overwritten from now on. */
  reset(): void {
    this.used = 0;
  }

  /** `sizeBytes` bytes of the arena for one file (8-byte aligned); it grows (anew) when full. */
  take = (sizeBytes: number): Uint8Array => {
    if (this.used + sizeBytes > this.buffer.byteLength) {
      this.buffer = new Uint8Array(Math.max(2 * this.buffer.byteLength, sizeBytes, 1 << 20));
      this.used = 0;
    }
    const bytes = this.buffer.subarray(this.used, this.used + sizeBytes);
    this.used += (sizeBytes + 7) & ~7;
    return bytes;
  };
}
const arena = new ReadArena();

/** Decodes and stages groups of account-hours, in this thread or on workers. */
export interface Stager {
  /**
   * Groups a load keeps handed over and not yet applied, at most. 1 for a stager that stages
   * in the calling thread: each group is staged as it is handed over, and holding more only
   * keeps their objects alive long enough to reach V8's old generation (a higher peak, measured:
   * docs/performance.md). More on workers, so that none waits for work.
   */
  inFlight: number;
  stage(hours: AccountHour[], tables: readonly DataTable[], columns?: ColumnSelection): Promise<StagedGroup>;
  /** A stager with a tap: the taps' sums of the account-hours it staged, one state per thread (call before `close`). */
  collect?(): Promise<unknown[]>;
  close(): Promise<void>;
}

/** What a stager does besides staging columns. */
export interface StagerOptions {
  /** Also visit the account-hours it stages with a tap of this plug-in, one per thread (billing's sums). Default: none. */
  tap?: TapPlugin;
  /** Hash every file (SHA-256, the manifest's content hashes). Default true; false leaves every hash "". */
  hash?: boolean;
}

/** How {@link stageHours} stages a group, besides its tables. */
export interface StageOptions {
  /** Decode each account-hour into records first, and stage those (default: straight from the bytes); not with `tap`. */
  decode?: (hour: AccountHour) => DecodedAccountHour;
  /** The columns kept, by table (default: all). */
  columns?: ColumnSelection;
  /** Also visit the staged account-hours with this thread's tap. */
  tap?: HourTap;
  /** Hash every file; default true (false: every hash is ""). */
  hash?: boolean;
}

/**
 * Reads the files the reader left unread, decodes each account-hour of a group and stages
 * the readable ones as columns of `tables` (those `options.columns` keeps): straight from the
 * bytes into columns by default (errors other than BadFileError propagate), or through
 * `options.decode` and its records when given. An hour with a file that cannot be read fails
 * like one that cannot be decoded (its hashes are "").
 */
export function stageHours(
  hours: AccountHour[],
  tables: readonly DataTable[],
  options: StageOptions = {},
): StagedGroup {
  const { decode, columns, tap } = options;
  if (decode !== undefined && tap !== undefined)
    throw new Error("stageHours: a tap needs the visit of the bytes, not decoded records");
  const hash = options.hash ?? true;
  const errors: StageError[] = [];
  const failed = (index: number, error: unknown): void => {
    if (!(error instanceof BadFileError)) throw error;
    errors.push({ index, code: error.code, file: error.file, reason: error.reason });
  };
  const unread = new Set<number>();
  arena.reset();
  hours.forEach((hour, index) => {
    try {
      for (const source of hour.sources) readDeferred(source, arena.take);
    } catch (error) {
      failed(index, error);
      unread.add(index);
    }
  });
  const sha256 = hours.map((hour, index) =>
    hour.sources.map((s) => (!hash || unread.has(index) ? "" : createHash("sha256").update(s.bytes).digest("hex"))),
  );
  const names = (hour: AccountHour) => hour.sources.map((s) => s.name);
  if (decode !== undefined) {
    const decoded: DecodedAccountHour[] = [];
    const files: string[][] = [];
    hours.forEach((hour, index) => {
      if (unread.has(index)) return;
      try {
        decoded.push(decode(hour));
        files.push(names(hour));
      } catch (error) {
        failed(index, error);
      }
    });
    return { ...stageRecords(decoded, new Set(tables), columns, files), errors, sha256 };
  }
  const inputBytes = hours.reduce((sum, h) => sum + h.sources.reduce((n, s) => n + s.bytes.byteLength, 0), 0);
  const builder = new ColumnBuilder(new Set(tables), inputBytes, columns, tap?.visitor);
  hours.forEach((hour, index) => {
    if (unread.has(index)) return;
    builder.beginHour(hour.accountId, hour.hourEpoch, names(hour));
    tap?.begin(hour.accountId, hour.hourEpoch);
    try {
      const { rootAccountId, cloudspaces } = visitAccountHour(hour, builder);
      builder.endHour(rootAccountId, cloudspaces);
      tap?.end();
    } catch (error) {
      builder.abandonHour();
      failed(index, error);
    }
  });
  return { batch: builder.finish(), errors, sha256, impossible: [...builder.impossibleValues] };
}

/** A stager decoding in the calling thread (visiting what it stages with a tap of `options.tap`). */
export function inlineStager(options: StagerOptions = {}): Stager {
  const tap = options.tap?.create(options.tap.options);
  return {
    inFlight: 1,
    stage: async (hours, tables, columns) => stageHours(hours, tables, { columns, tap, hash: options.hash }),
    collect: tap === undefined ? undefined : async () => [tap.collect().state],
    close: async () => {},
  };
}

/**
 * Worker threads worth starting for a load of `bytesTotal` of input into a database: none
 * below 16 MiB or on one core, else one per spare core (at most 4): the main thread inserts.
 */
export function defaultWorkers(bytesTotal: number, cores: number): number {
  if (bytesTotal < 16 * 1024 * 1024 || cores < 2) return 0;
  return Math.min(4, cores - 1);
}

/**
 * Worker threads worth starting to bill `bytesTotal` of input as it streams, with `free` cores
 * idle besides this process's work (see `freeCores`): none until the input is large enough to
 * repay their start (each worker loads its code and warms up its compiler anew), nor when
 * less than half a core is free (they would only take turns with the main thread, slower than
 * none); else one per free core and one for the core this thread leaves (the main thread only
 * walks, reads and hands out work), at most 8 and at most one per core. Where workers start to
 * pay, measured on 2 cores, is in docs/performance.md ("Why the code is written so"): 256 MiB
 * with one spare core, and proportionally less with more spare cores (an estimate: not
 * measured).
 */
export function billingWorkers(bytesTotal: number, cores: number, free: number): number {
  if (bytesTotal < billingWorkersFrom(cores) || free < 0.5) return 0;
  return Math.min(8, cores, Math.round(free) + 1);
}

/** The input bytes from which billing may use workers (see `billingWorkers`): a tree is walked that far before its first account-hour is billed. */
export const billingWorkersFrom = (cores: number): number =>
  cores < 2 ? Number.POSITIVE_INFINITY : (256 * 1024 * 1024) / (cores - 1);
