import type { Argv } from "yargs";
import { UsageError } from "../base/errors.js";
import type { AccountHourSelection, ReadProgress } from "../input/types.js";
import type { ColumnSelection } from "../load/columnBatch.js";
import type { DataTable } from "../store/schema.js";
import type { LoadReport, StoreSource, Warehouse } from "../store/types.js";
import { startFilesProgress } from "./progress.js";

/** The arguments every command that reads data accepts. */
export interface InputArgs {
  /** Zip files and directories (the `inputs` positional). */
  inputs?: string[];
  /** A database file made by `ingest`, instead of inputs. */
  db?: string;
  /** Skip bad files and conflicting account-hours, listing them on stderr. */
  skipBad?: boolean;
  /** Read every file as packed Cap'n Proto. */
  packed?: boolean;
  /** Worker threads decoding the files (`--workers`); undefined: as many as pay. */
  workers?: number;
  /** With `--db`: seconds to wait while a writer holds the file (`--wait`). */
  wait?: number;
}

/** `--workers`, on every command that reads input files. */
export const WORKERS_OPTION = {
  describe:
    "threads decoding the files: 0 decodes in the main thread (the least memory); default: one per core for inputs large enough to repay their start",
  type: "number",
  requiresArg: true,
} as const;

/** `--db FILE`, required, on the commands that read only a warehouse (status, forecast, alerts). */
export const WAREHOUSE_OPTION = {
  type: "string",
  demandOption: true,
  requiresArg: true,
  describe: "the warehouse file (made by ingest or sync)",
} as const;

/** `--names FILE`, over the names a sync stored. */
export const NAMES_OPTION = {
  type: "string",
  requiresArg: true,
  describe: "a names file (CSV kind,id,name or JSON), over the names sync stored",
} as const;

/** `--wait SECONDS`, on every command that opens a warehouse file. */
export const WAIT_OPTION = {
  describe:
    "with --db: while another process writes the file (a sync), wait up to this many seconds for its commit; then exit 6 (default 60)",
  type: "number",
  requiresArg: true,
} as const;

/** The `--wait` given, checked (seconds, 0 or more), or undefined. */
export function waitOf(argv: { wait?: number }): number | undefined {
  const { wait } = argv;
  if (wait === undefined) return undefined;
  if (!Number.isFinite(wait) || wait < 0)
    throw new UsageError(`bad --wait ${String(wait)}: use a number of seconds, 0 or more`);
  return wait;
}

/** The `--workers` given, checked (a whole number from 0 to 64), or undefined. */
export function workersOf(argv: { workers?: number }): number | undefined {
  const { workers } = argv;
  if (workers === undefined) return undefined;
  if (!Number.isInteger(workers) || workers < 0 || workers > 64)
    throw new UsageError(`bad --workers ${String(workers)}: use a whole number from 0 to 64`);
  return workers;
}

/** The positional of commands that read data: put it in the command string, e.g. `billing [inputs..]`. */
export const INPUTS_POSITIONAL = "[inputs..]";

/**
 * Declares the `inputs` positional and `--db`, `--skip-bad`, `--packed`, `--workers`, `--wait` on a command's
 * yargs (the command string must end with {@link INPUTS_POSITIONAL}).
 */
export function inputOptions<T>(yargs: Argv<T>): Argv<T & InputArgs> {
  return yargs
    .positional("inputs", {
      describe: "zip files and directories of consumption files (or use --db)",
      type: "string",
      array: true,
    })
    .option("db", {
      describe: "a database file made by `cloudunits ingest`, instead of inputs",
      type: "string",
      requiresArg: true,
    })
    .option("skip-bad", {
      describe: "go on without unreadable files and conflicting account-hours, listing them on stderr",
      type: "boolean",
      default: false,
    })
    .option("packed", {
      describe: "read every file as packed Cap'n Proto (files named *.packed always are)",
      type: "boolean",
      default: false,
    })
    .option("workers", WORKERS_OPTION)
    .option("wait", WAIT_OPTION) as unknown as Argv<T & InputArgs>;
}

/** The warehouse source the arguments name: inputs or `--db`, exactly one of them (else UsageError). */
export function storeSourceOf(argv: InputArgs): StoreSource {
  const inputs = (argv.inputs ?? []).map(String);
  if (argv.db !== undefined && inputs.length > 0) {
    throw new UsageError(`give inputs or --db, not both (got --db ${argv.db} and ${inputs.join(" ")})`);
  }
  if (argv.db !== undefined) {
    if (argv.db === "") throw new UsageError("--db needs a file name");
    return { db: argv.db };
  }
  if (inputs.length === 0) throw new UsageError("name the inputs (zip files or directories) or pass --db FILE");
  return inputs;
}

/**
 * The lines the CLI prints on stderr about a load: skipped files, ignored paths. Byte-identical
 * duplicates are dropped silently (docs/cli.md, exit codes): reports and `check` count them.
 */
export function loadNotes(load: LoadReport): string[] {
  const notes: string[] = [];
  if (load.skipped.length > 0) {
    notes.push(`skipped ${load.skipped.length} bad file${load.skipped.length === 1 ? "" : "s"}:`);
    for (const s of load.skipped) notes.push(`  ${s.file}: ${s.reason} [${s.code}]`);
  }
  if (load.ignoredPaths > 0) {
    notes.push(
      `ignored ${load.ignoredPaths} file${load.ignoredPaths === 1 ? "" : "s"} whose path is not a consumption path`,
    );
  }
  return notes;
}

/**
 * DuckDB's memory for a command that reads a warehouse through the billing engine (`forecast`,
 * `alerts`, `top`): what it caches of the file stays under this, so the peak does not grow with the
 * rows read (docs/performance.md); the file is read again
 * from the system's cache when needed.
 */
export const ENGINE_READ_MEMORY_BYTES = 64 * 1024 * 1024;

/** Options of {@link withWarehouse}. */
export interface WithWarehouseOptions {
  /** The data tables the command queries (an in-memory load fills only these). Default: all. */
  tables?: readonly DataTable[];
  /** The columns the command queries, by table (an in-memory load keeps only these). Default: all. */
  columns?: ColumnSelection;
  /** Always skip bad files (a command that reports them itself, like `check`). Default: `--skip-bad`. */
  skipBad?: boolean;
  /** Load only these account-hours from inputs (see OpenWarehouseOptions.select). Default: all. */
  select?: AccountHourSelection;
  /** Print the skipped files, duplicates and ignored paths on stderr. Default: for inputs only (from `--db` they are past loads', shown by check). */
  notes?: boolean;
  /** DuckDB's memory limit for `--db`, bytes (see OpenWarehouseOptions.memoryLimitBytes). Default: DuckDB's. */
  memoryLimitBytes?: number;
}

/**
 * Runs `read` (a load of the inputs) with a progress bar on a terminal, then prints the
 * skipped files, duplicates and ignored paths of its load report to stderr (unless `notes`
 * is false).
 */
export async function withReadProgress<T extends { load?: LoadReport }>(
  read: (onProgress: (progress: ReadProgress) => void) => Promise<T>,
  notes = true,
): Promise<T> {
  const bar = startFilesProgress("reading");
  let result: T;
  try {
    result = await read((p) =>
      bar.update({
        filesDone: p.filesRead,
        filesTotal: p.filesTotal,
        bytesDone: p.bytesRead,
        bytesTotal: p.bytesTotal,
      }),
    );
  } finally {
    bar.stop();
  }
  if (notes && result.load !== undefined)
    for (const line of loadNotes(result.load)) process.stderr.write(`cloudunits: ${line}\n`);
  return result;
}

/**
 * Opens the warehouse the arguments name (in memory from inputs, with a progress bar on a
 * terminal, or `--db`), prints the skipped files, duplicates and ignored paths to stderr,
 * runs `fn`, and closes the warehouse in `finally`.
 */
export async function withWarehouse<R>(
  argv: InputArgs,
  fn: (warehouse: Warehouse) => Promise<R>,
  options: WithWarehouseOptions = {},
): Promise<R> {
  const source = storeSourceOf(argv);
  const { openWarehouse } = await import("../store/openWarehouse.js"); // DuckDB loads only for commands that read data
  const warehouse = await withReadProgress(
    (onProgress) =>
      openWarehouse(source, {
        skipBad: options.skipBad ?? argv.skipBad ?? false,
        packed: argv.packed ?? false,
        tables: options.tables,
        columns: options.columns,
        select: options.select,
        memoryLimitBytes: options.memoryLimitBytes,
        workers: workersOf(argv),
        waitSeconds: waitOf(argv),
        onProgress,
      }),
    options.notes ?? Array.isArray(source),
  ); // --db: what past loads dropped or skipped is history, for check and status
  try {
    return await fn(warehouse);
  } finally {
    warehouse.close();
  }
}
