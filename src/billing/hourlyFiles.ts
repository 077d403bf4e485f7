import { BadInputError } from "../base/errors.js";
import type { HourTap, TapPlugin } from "../load/hourTap.js";
import { loadReader } from "../load/loadReader.js";
import { loadSources, type LoadTarget } from "../load/loadSources.js";
import { AccountHourFactsBuilder, FactsVisitor } from "../load/machineFacts.js";
import type { LoadManifest } from "../load/loadManifest.js";
import { inlineStager } from "../load/stageHours.js";
import { BillingEngine } from "./billingEngine.js";
import type { Period } from "../base/period.js";
import { resolveOptions, type BillingOptions } from "./billingOptions.js";
import type { HourlyRows } from "./hourlyRows.js";
import { levelsFor, type Level } from "./levels.js";
import type { BillingLine } from "./lines.js";
import type { BillingReport } from "./billingReport.js";
import type { HourlyStream } from "./hourlyStream.js";
import { inReportOrder, linesOfRows } from "./hourlyRowLines.js";

/** How input files are read for their hourly lines. */
export interface HourlyFilesReading {
  /** Leave out bad files and conflicting account-hours (as the report did). Default false: they throw a BadInputError. */
  skipBad?: boolean;
  /** Read every file as packed Cap'n Proto. Default false. */
  packed?: boolean;
}

/** Hours of lines waiting for the consumer, at most, before the reading waits for it. */
const HOURS_AHEAD = 4;

/** A manifest of nothing: the hourly lines are a second reading of files the report has loaded (and fingerprinted) already. */
const NO_MANIFEST: LoadManifest = {
  loadedFiles: () => [],
  add: () => {},
  supersede: () => {},
  take: () => async () => {},
};

/**
 * The hourly lines of `[start, end)` (one account, or all) from input files, in batches of one
 * hour (by hour, then the hierarchy, as `hourlyLines` reads them from a warehouse): the files are
 * read by hour, then account (`ReadOptions.order`), decoded in this thread into the facts of
 * each account-hour, and summed by a billing engine that hands over each hour's lines once the
 * next hour begins. Nothing is loaded into a database: memory does not grow with the period
 * (the files' index, about 150 bytes each, and an engine's sums per entity). Reading waits
 * while a few hours of lines wait for the consumer.
 */
export async function* hourlyFilesLines(
  inputs: readonly string[],
  params: Period,
  options: BillingOptions & HourlyFilesReading = {},
  levels: readonly Level[] = levelsFor(params),
): AsyncGenerator<BillingLine[]> {
  yield* linesOfRows(hourlyFilesRows(inputs, params, options, levels), resolveOptions(options));
}

/**
 * The hourly lines of {@link hourlyFilesLines} as the engine's rows (`HourlyRows`: numbers in columns,
 * no object per line), an hour a batch (in report order, a batch the consumer may keep).
 */
export async function* hourlyFilesRows(
  inputs: readonly string[],
  params: Period,
  options: BillingOptions & HourlyFilesReading = {},
  levels: readonly Level[] = levelsFor(params),
): AsyncGenerator<HourlyRows> {
  const resolved = resolveOptions(options);
  const ready: HourlyRows[] = [];
  const engine = new BillingEngine(resolved.units, resolved.cuRollup, {
    rows: (rows) => {
      ready.push(inReportOrder(rows, levels));
      wake();
    },
  });
  engine.keepLevels(levels, []); // no period line is read: nothing summed over the period
  const { reader, badFiles } = loadReader([...inputs], {
    packed: options.packed,
    select: { accountId: params.accountId, start: params.start, end: params.end },
    order: "hour",
  });
  let wake = () => {};
  let drained = () => {};
  let finished = false;
  let stopped = false;
  const target: LoadTarget = {
    // after each group staged: wait while the consumer has hours to take; a consumer gone ends the reading
    add: async () => {
      while (ready.length >= HOURS_AHEAD && !stopped) await new Promise<void>((resolve) => (drained = resolve));
      if (stopped) throw new Error("the hourly lines' reader left");
    },
  };
  const load = loadSources(target, reader, NO_MANIFEST, badFiles, {
    skipBad: options.skipBad,
    stopOnError: true,
    batchBytes: Number.POSITIVE_INFINITY,
    tables: [],
    stager: () => inlineStager({ tap: hourlyTap(resolved.units.externalNicType, engine), hash: false }),
  }).finally(() => {
    finished = true;
    wake();
  });
  load.catch(() => {}); // awaited below
  try {
    for (;;) {
      if (ready.length > 0) {
        yield ready.shift()!;
        if (ready.length < HOURS_AHEAD) drained();
        continue;
      }
      if (finished) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    const outcome = await load;
    if (outcome.errors.length > 0) throw new BadInputError(outcome.errors);
    engine.finish(); // the last hour's lines
    while (ready.length > 0) yield ready.shift()!;
  } finally {
    stopped = true;
    drained();
    await load.catch(() => {});
  }
}

/** The tap of this thread that builds each account-hour's facts and adds them to `engine`. */
function hourlyTap(externalNicType: string, engine: BillingEngine): TapPlugin {
  const builder = new AccountHourFactsBuilder(externalNicType);
  const tap: HourTap = {
    visitor: new FactsVisitor(builder),
    begin: (accountId, hourEpoch) => builder.begin(accountId, hourEpoch),
    end: () => engine.add(builder.finish()),
    collect: () => ({ state: undefined, transfer: [] }),
  };
  // in this thread only (`inlineStager`): a worker would import a module, never this closure
  return { module: "", options: undefined, create: () => tap };
}

/**
 * The hourly lines of `report` (billed from `inputs`), read again from the files by hour (see
 * `hourlyFilesLines`). Their count is the report's: a line's sample hours are the hourly lines
 * it sums (an hour of the environment, an account-hour, a cloud space's, a machine record's);
 * levels the report has no lines of are counted by reading their lines.
 */
export function hourlyFiles(
  inputs: readonly string[],
  report: BillingReport,
  reading: HourlyFilesReading = {},
): HourlyStream {
  const options = { ...report.options, ...reading };
  const rows = (levels: readonly Level[] = levelsFor(report.params)) =>
    hourlyFilesRows(inputs, report.params, options, levels);
  return {
    report,
    rows,
    lines: (levels) => linesOfRows(rows(levels), report.options),
    count: async (levels = levelsFor(report.params)) => {
      const billed = new Set(report.lines.map((l) => l.level));
      if (levels.every((l) => billed.has(l)))
        return report.lines
          .filter((l) => (levels as readonly string[]).includes(l.level))
          .reduce((n, l) => n + l.sampleHours, 0);
      let n = 0;
      for await (const hour of rows(levels)) n += hour.count;
      return n;
    },
  };
}
