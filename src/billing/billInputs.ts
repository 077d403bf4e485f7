import { availableParallelism } from "node:os";
import { BadInputError, UsageError } from "../base/errors.js";
import type { ReadProgress } from "../input/types.js";
import { chooseStager } from "../load/chooseStager.js";
import type { ImpossibleValue } from "../load/impossibleValues.js";
import { loadReader } from "../load/loadReader.js";
import { loadSources, type LoadTarget } from "../load/loadSources.js";
import { billingWorkers, billingWorkersFrom } from "../load/stageHours.js";
import { StreamFallback } from "../input/streamTree.js";
import { freeCores } from "../load/freeCores.js";
import type { LoadManifest, ManifestRow } from "../load/loadManifest.js";
import type { LoadReport } from "../load/loadReport.js";
import { compareImpossible, isBilledImpossible, refuseImpossible } from "./billedImpossibleValues.js";
import { BillingEngine } from "./billingEngine.js";
import { billingTap, engineStates } from "./billingTap.js";
import type { BilledPeriod } from "./billWarehouse.js";
import { qualityOf } from "./dataQuality.js";
import { ContentFingerprint } from "./inputFingerprints.js";
import { periodOnly, type Period } from "../base/period.js";
import { resolveOptions, type BillingOptions } from "./billingOptions.js";
import { cutsWithin } from "./cuts.js";
import { linesOf, partsOf } from "./engineLines.js";
import { environmentOnly, levelsFor, type Level } from "./levels.js";
import { listAccountHours } from "../input/listAccountHours.js";
import { checkKnownIds } from "../base/unknownIds.js";

/** Options of {@link billInputs}: the billing options, and how the inputs are read. */
export interface BillInputsOptions extends BillingOptions {
  /**
   * Go on without bad files and conflicting account-hours (listed in `load.skipped`), and count
   * impossible values in billed fields as 0 (listed in `quality.impossibleValues`). Default false:
   * throw a BadInputError naming every bad file, or an ImpossibleValuesError naming every impossible value.
   */
  skipBad?: boolean;
  /** Read every input file as packed Cap'n Proto (`--packed`). Default false: only `*.packed` files. */
  packed?: boolean;
  /** Progress of reading the inputs, for a progress bar. */
  onProgress?: (progress: ReadProgress) => void;
  /** Worker threads decoding and billing the files; 0: this thread (the least memory). Default: as many as the cores free now (at most 8) for inputs large enough to repay their start (see `billingWorkers`), else 0. */
  workers?: number;
  /**
   * Hash every file for `data`, the fingerprint of the content billed (the XLSX About sheet
   * shows it). Default true; false saves the SHA-256 of every byte (about a third of the
   * decoding's time) and leaves `data` undefined.
   */
  fingerprint?: boolean;
  /**
   * The levels whose lines are wanted. Default `levelsFor(params)`; the environment alone
   * (`calculateLevels` of a period without an account) skips the work of every other level.
   */
  levels?: readonly Level[];
  /**
   * A larger input folder is billed while it is walked, from when this many bytes of its files
   * are found (see `ReadOptions.streamAfterBytes`; a tree whose folders turn out not to be in
   * the order of their hours is then read again, indexed whole). Default: the size from which
   * worker threads may be started (`billingWorkers`), so that the walk has found that much first.
   */
  streamAfterBytes?: number;
  /** Hours strictly inside the period where it is cut into parts billed apart too (see `cuts.ts`); default none. */
  cuts?: readonly number[];
  /** The levels of the parts' lines (`parts`); default `levels`. */
  partLevels?: readonly Level[];
}

/**
 * The manifest of a load that nothing keeps: the files of one run, each account-hour met
 * once (the reader gathers its copies), so only the loaded files' content hashes are kept,
 * for the data fingerprint, in 32 bytes each.
 */
class RunManifest implements LoadManifest {
  /** `fingerprint`: undefined when the files are not hashed. */
  constructor(readonly fingerprint: ContentFingerprint | undefined) {}

  loadedFiles(): [] {
    return [];
  }

  add(row: ManifestRow): void {
    if (row.status === "loaded") this.fingerprint?.add(row.sha256);
  }

  supersede(): void {
    throw new Error("a load from inputs alone replaces nothing");
  }

  take(): () => Promise<void> {
    return async () => {};
  }
}

/**
 * Bills `[start, end)` (one account, or every account) straight from input files, as they
 * stream: only the files whose path is an account-hour of the period (and account) are read;
 * each is decoded, on worker threads for larger inputs, into the facts billing needs, and
 * summed by the billing engine as it goes. Nothing is loaded into a database, and over a
 * longer period memory grows only by the files' index (about 150 bytes each). Duplicates,
 * conflicts, bad files and impossible values are treated as by `open` (docs/cli.md, docs/warehouse.md):
 * without `skipBad` a BadInputError names every bad file, and an ImpossibleValuesError every
 * impossible value in a billed field; with `skipBad` the bad files are left out (`load.skipped`)
 * and the impossible values count as 0 (`quality.impossibleValues` lists them).
 *
 * The figures are those of `billWarehouse` over a warehouse loaded from the same inputs, to the bit.
 */
export async function billInputs(
  inputs: readonly string[],
  params: Period,
  options: BillInputsOptions = {},
): Promise<BilledPeriod> {
  if (inputs.length === 0) throw new UsageError("no inputs: name zip files or directories");
  try {
    return await billInputsRead(inputs, params, options, true);
  } catch (error) {
    if (!(error instanceof StreamFallback)) throw error;
    return billInputsRead(inputs, params, options, false); // the tree was not in reading order: indexed whole this time
  }
}

/** {@link billInputs}, reading a large input folder while it is walked when `stream` (see `streamInputs`). */
async function billInputsRead(
  inputs: readonly string[],
  params: Period,
  options: BillInputsOptions,
  stream: boolean,
): Promise<BilledPeriod> {
  const cores = availableParallelism();
  const resolved = resolveOptions(options);
  const levels = options.levels ?? levelsFor(params);
  const splitAt = cutsWithin(options.cuts, params);
  const rules = {
    units: resolved.units,
    cuRollup: resolved.cuRollup,
    environmentOnly: environmentOnly(levels),
    splitAt,
  };
  const { reader, badFiles, bytesTotal } = loadReader([...inputs], {
    packed: options.packed,
    select: { accountId: params.accountId, start: params.start, end: params.end },
    onProgress: options.onProgress,
    streamAfterBytes: stream ? (options.streamAfterBytes ?? billingWorkersFrom(cores)) : undefined,
  });
  const impossible: ImpossibleValue[] = [];
  const target: LoadTarget = {
    commit: async (_manifestRows, values) => {
      for (const v of values) if (isBilledImpossible(v, resolved.units)) impossible.push(v);
    },
  };
  const fingerprint = options.fingerprint ?? true;
  const manifest = new RunManifest(fingerprint ? new ContentFingerprint() : undefined);
  const outcome = await loadSources(target, reader, manifest, badFiles, {
    skipBad: options.skipBad,
    stopOnError: true,
    batchBytes: Number.POSITIVE_INFINITY,
    tables: [],
    stager: () =>
      chooseStager(bytesTotal(), options.workers ?? billingWorkers(bytesTotal(), cores, freeCores(cores)), {
        tap: billingTap(rules),
        hash: fingerprint,
      }),
  });
  if (outcome.errors.length > 0) throw new BadInputError(outcome.errors);
  impossible.sort(compareImpossible);
  if (!options.skipBad) refuseImpossible(impossible); // as open(): refused, or counted as 0 with skipBad
  const engine = new BillingEngine(rules.units, rules.cuRollup, undefined, rules.environmentOnly, splitAt);
  for (const state of engineStates(outcome.tapped)) engine.merge(state);
  if (params.accountId !== undefined && outcome.accountHours === 0) {
    // nothing of the account in the period: an account of no file at all is an error, not a bill of 0
    const listing = await listAccountHours([...inputs], { packed: options.packed });
    checkKnownIds(
      "account",
      [params.accountId],
      listing.accountHours.map((h) => h.accountId),
      "the inputs",
    );
  }
  const load: LoadReport = {
    inputs: [...inputs],
    filesLoaded: outcome.filesLoaded,
    accountHours: outcome.accountHours,
    duplicates: outcome.duplicates,
    skipped: outcome.skipped,
    ignoredPaths: reader.summary.ignoredPaths,
  };
  return {
    period: periodOnly(params),
    options: resolved,
    lines: linesOf(engine.finish(), resolved, levels),
    parts: partsOf(engine, params, splitAt, resolved, options.partLevels ?? levels),
    quality: qualityOf(engine.seenData(), params, load, impossible),
    load,
    data: manifest.fingerprint?.digest(),
    road: "files",
  };
}
