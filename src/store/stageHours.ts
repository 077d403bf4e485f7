import { createHash } from "node:crypto";
import { visitAccountHour } from "../capnp/visitAccountHour.js";
import type { DecodedAccountHour } from "../capnp/records.js";
import { BadFileError } from "../errors.js";
import { readDeferred } from "../input/readSource.js";
import type { AccountHour } from "../input/types.js";
import type { ColumnBatch, ColumnSelection } from "./columnBatch.js";
import { ColumnBuilder, stageRecords } from "./ColumnBuilder.js";
import type { ImpossibleValue } from "./impossibleValues.js";
import type { DataTable } from "./schema.js";
import { BillingEngine, type EngineState } from "../billing/billingEngine.js";
import { AccountHourFactsBuilder, FactsVisitor } from "../billing/machineFacts.js";
import type { CuRollup } from "../billing/unitNames.js";
import type { Units } from "../billing/units.js";
import type { RecordVisitor } from "../capnp/visitRecords.js";

/** A file that could not be decoded, as plain data (it crosses from a worker). */
export interface StageError {
  /** Index of the account-hour in the staged group. */
  index: number;
  code: string;
  file: string;
  reason: string;
}

/** A group of account-hours decoded and staged column by column; failed hours are left out of `batch`. */
export interface StagedGroup {
  batch: ColumnBatch;
  errors: StageError[];
  /** The hex SHA-256 of every file, by account-hour and source (failed hours included). */
  sha256: string[][];
  /** The impossible values (SPEC 3.1) of the staged hours, staged as NULL. */
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
  stage(hours: AccountHour[], tables: readonly DataTable[], columns?: ColumnSelection): Promise<StagedGroup>;
  /** A billing stager: the sums of the account-hours it staged, one state per thread (call before `close`). */
  collect?(): Promise<EngineState[]>;
  close(): Promise<void>;
}

/** What a billing stager bills by: the units and the CU rule. */
export interface BillingRules {
  units: Units;
  cuRollup: CuRollup;
}

/**
 * The billing of one thread: account-hours staged with it are also billed, straight from
 * the visit of their bytes (see `FactsVisitor`), into its engine.
 */
export class ThreadBilling {
  readonly builder: AccountHourFactsBuilder;
  readonly engine: BillingEngine;
  readonly visitor: RecordVisitor;

  constructor(readonly rules: BillingRules) {
    this.builder = new AccountHourFactsBuilder(rules.units.externalNicType);
    this.engine = new BillingEngine(rules.units, rules.cuRollup);
    this.visitor = new FactsVisitor(this.builder);
  }

  /** A visitor feeding both `first` (the columns and impossible values) and the facts. */
  tee(first: RecordVisitor): RecordVisitor {
    const second = this.visitor;
    return {
      nic: (...a) => (first.nic(...a), second.nic(...a)),
      disk: (...a) => (first.disk(...a), second.disk(...a)),
      machine: (...a) => (first.machine(...a), second.machine(...a)),
      cloudSpace: (...a) => (first.cloudSpace(...a), second.cloudSpace(...a)),
    };
  }
}

/**
 * Reads the files the reader left unread, decodes each account-hour of a group and stages
 * the readable ones as columns of `tables` (those `columns` keeps): straight from the bytes
 * into columns by default (errors other than BadFileError propagate), or through `decode`
 * and its records when given. An hour with a file that cannot be read fails like one that
 * cannot be decoded (its hashes are "").
 */
export function stageHours(
  hours: AccountHour[],
  tables: readonly DataTable[],
  decode?: (hour: AccountHour) => DecodedAccountHour,
  columns?: ColumnSelection,
  billing?: ThreadBilling,
): StagedGroup {
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
    hour.sources.map((s) => (unread.has(index) ? "" : createHash("sha256").update(s.bytes).digest("hex"))),
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
  const builder = new ColumnBuilder(new Set(tables), inputBytes, columns);
  const visitor = billing?.tee(builder) ?? builder;
  hours.forEach((hour, index) => {
    if (unread.has(index)) return;
    builder.beginHour(hour.accountId, hour.hourEpoch, names(hour));
    billing?.builder.begin(hour.accountId, hour.hourEpoch);
    try {
      const { rootAccountId, cloudspaces } = visitAccountHour(hour, visitor);
      builder.endHour(rootAccountId, cloudspaces);
      billing?.engine.add(billing.builder.finish());
    } catch (error) {
      builder.abandonHour();
      failed(index, error);
    }
  });
  return { batch: builder.finish(), errors, sha256, impossible: [...builder.impossibleValues] };
}

/** A stager decoding in the calling thread; with `billing`, billing what it stages. */
export function inlineStager(billing?: BillingRules): Stager {
  const thread = billing === undefined ? undefined : new ThreadBilling(billing);
  return {
    stage: async (hours, tables, columns) => stageHours(hours, tables, undefined, columns, thread),
    collect: thread === undefined ? undefined : async () => [thread.engine.state()],
    close: async () => {},
  };
}

/** Worker threads worth starting for `bytesTotal` of input: none below 16 MiB or on one core, else one per spare core (at most 4). */
export function defaultWorkers(bytesTotal: number, cores: number): number {
  if (bytesTotal < 16 * 1024 * 1024 || cores < 2) return 0;
  return Math.min(4, cores - 1);
}
