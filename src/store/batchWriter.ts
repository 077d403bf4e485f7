import type { DuckDBConnection } from "@duckdb/node-api";
import { releaseBatch, type ColumnBatch, type ColumnSelection } from "../load/columnBatch.js";
import { insertBatches, longStringBytes, registerStagedColumns } from "./insertColumns.js";
import type { DataTable } from "./schema.js";

/**
 * Input bytes of staged groups inserted by one statement per table, for files under
 * LARGE_FILE_BYTES on average. The staged columns of the units queued are held until DuckDB has
 * taken them, so a smaller unit holds less: many small files' units were the largest part of the
 * external memory (8 MiB before: docs/performance.md, "Ingest and `billing --db` of many small files").
 */
const UNIT_BYTES = 2 * 1024 * 1024;
/**
 * The same for larger files: each unit costs DuckDB a statement per table, and a month of files
 * of 58 KB took more CPU in units of 2 MiB than of 8 (docs/performance.md, "Ingest of big files,
 * the CPU regained").
 */
const LARGE_FILES_UNIT_BYTES = 8 * 1024 * 1024;
/** The mean size of the files loaded so far from which they count as large (hourly files of 2 machines: under 1 KB). */
const LARGE_FILE_BYTES = 16 * 1024;
/** The first unit's size: inserting starts as soon as a group is staged, and units double up to their size. */
const FIRST_UNIT_BYTES = 512 * 1024;
/** Inserts queued and not yet done, at most: bounds the staged rows held while DuckDB catches up. */
const MAX_UNITS_QUEUED = 2;
/**
 * DuckDB's memory cap is raised to its base plus this many times the long strings of the
 * batches not yet committed: DuckDB holds a transaction's strings in memory until its commit
 * (a load's long image names near its cap failed its commit: docs/performance.md).
 */
const MEMORY_PER_STRING_BYTE = 2;

/**
 * Writes staged columns to the data tables in batches, each committed in one transaction
 * with its manifest rows. Every statement is queued on a connection and runs in DuckDB's
 * threads while the caller reads and decodes ahead: staged groups go in by units of up to
 * `UNIT_BYTES` of input (`INSERT ... SELECT` from the staged arrays), then the manifest rows,
 * then COMMIT. Batches take turns on the connections, so the next batch inserts while the
 * previous one commits; each COMMIT waits for the one before it, so batches commit in order.
 * A failure stops the queue it happened in and every later COMMIT; it is thrown by the next
 * wait (`add` when it waits for room, `settle`, `exclusive`).
 */
export class BatchWriter {
  private readonly queues: Promise<void>[];
  private turn = 0;
  private begun = false;
  private unit: ColumnBatch[] = [];
  private unitBytes = 0;
  private unitTarget = FIRST_UNIT_BYTES;
  /** Input bytes and files added in the writer's life: their mean size chooses the unit's size and the memory cap. */
  private bytesAdded = 0;
  private filesAdded = 0;
  private inserting: Promise<void>[] = [];
  private lastCommit: Promise<void> = Promise.resolve();
  /** Long-string bytes added to each connection's open transaction (see MEMORY_PER_STRING_BYTE). */
  private readonly stringBytes: number[];
  private memoryLimitBytes: number | undefined;

  /**
   * `connections`: of one database, none in a transaction; `tables` and `columns`: what the
   * staged batches hold; `memoryLimitBytes`: the memory cap the database was opened with, if
   * any (raised while batches of long strings are open, never lowered in the writer's life);
   * `largeFilesMemoryLimitBytes`: the cap to raise it to once the files average LARGE_FILE_BYTES
   * or more (their larger units hold more in DuckDB).
   */
  constructor(
    private readonly connections: readonly DuckDBConnection[],
    private readonly tables: readonly DataTable[],
    private readonly columns?: ColumnSelection,
    private readonly baseMemoryLimitBytes?: number,
    private readonly largeFilesMemoryLimitBytes?: number,
  ) {
    if (connections.length === 0) throw new Error("BatchWriter needs a connection");
    registerStagedColumns(connections);
    this.queues = connections.map(() => Promise.resolve());
    this.stringBytes = connections.map(() => 0);
    this.memoryLimitBytes = baseMemoryLimitBytes;
  }

  /** The connection of the current batch. */
  private get connection(): DuckDBConnection {
    return this.connections[this.turn]!;
  }

  /** Queues `op` on the current batch's connection, after everything queued there. */
  private enqueue(op: (connection: DuckDBConnection) => Promise<unknown>): Promise<void> {
    const connection = this.connection;
    const done = this.queues[this.turn]!.then(async () => {
      await op(connection);
    });
    done.catch(() => {}); // thrown by the next wait, not reported as unhandled meanwhile
    this.queues[this.turn] = done;
    return done;
  }

  private begin(): void {
    if (this.begun) return;
    this.begun = true;
    this.enqueue((c) => c.run("BEGIN TRANSACTION"));
  }

  /** Adds a staged group (`inputFiles` files, `inputBytes` in all) to the current batch; waits when too many inserts are queued. */
  async add(batch: ColumnBatch, inputBytes: number, inputFiles = 1): Promise<void> {
    this.unit.push(batch);
    this.unitBytes += inputBytes;
    this.bytesAdded += inputBytes;
    this.filesAdded += inputFiles;
    if (this.baseMemoryLimitBytes !== undefined) this.stringBytes[this.turn]! += longStringBytes(batch);
    if (this.unitBytes >= this.unitTarget) await this.insertUnit();
  }

  private async insertUnit(): Promise<void> {
    if (this.unit.length === 0) return;
    this.begin();
    const batches = this.unit;
    this.unit = [];
    this.unitBytes = 0;
    this.unitTarget = Math.min(this.largeFiles ? LARGE_FILES_UNIT_BYTES : UNIT_BYTES, this.unitTarget * 2);
    this.makeRoom();
    this.inserting.push(
      this.enqueue(async (c) => {
        await insertBatches(c, batches, this.tables, this.columns);
        for (const batch of batches) releaseBatch(batch);
      }),
    );
    while (this.inserting.length > MAX_UNITS_QUEUED) await this.inserting.shift();
  }

  /**
   * Queues the end of the current batch: its last rows, `writeManifest`, COMMIT (after
   * the previous batch's); the next batch starts on the next connection. `writeManifest`
   * must not depend on anything that changes after this call.
   */
  async commit(writeManifest: (connection: DuckDBConnection) => Promise<void>): Promise<void> {
    await this.insertUnit();
    this.begin();
    this.enqueue(writeManifest);
    const previous = this.lastCommit;
    const turn = this.turn;
    this.lastCommit = this.enqueue(async (c) => {
      await previous;
      await c.run("COMMIT");
      this.stringBytes[turn] = 0;
    });
    this.begun = false;
    this.turn = (this.turn + 1) % this.connections.length;
  }

  /** Whether the files added so far average LARGE_FILE_BYTES or more. */
  private get largeFiles(): boolean {
    return this.filesAdded > 0 && this.bytesAdded >= LARGE_FILE_BYTES * this.filesAdded;
  }

  /** Raises DuckDB's memory cap (before the next insert) when the open batches' long strings, or large files, need it. */
  private makeRoom(): void {
    if (this.baseMemoryLimitBytes === undefined) return;
    const base =
      this.largeFiles && this.largeFilesMemoryLimitBytes !== undefined
        ? Math.max(this.baseMemoryLimitBytes, this.largeFilesMemoryLimitBytes)
        : this.baseMemoryLimitBytes;
    const needed = base + MEMORY_PER_STRING_BYTE * this.stringBytes.reduce((a, b) => a + b, 0);
    if (needed <= this.memoryLimitBytes!) return;
    this.memoryLimitBytes = needed;
    this.enqueue((c) => c.run("SET memory_limit = $limit", { limit: `${Math.ceil(needed / 1024)}KiB` }));
  }

  /** Waits for everything queued; throws the first failure. */
  async settle(): Promise<void> {
    this.inserting = [];
    await Promise.all(this.queues);
  }

  /**
   * Runs `op` in the current batch's transaction once every earlier statement is done and
   * every earlier batch committed (no other statement of this writer runs meanwhile).
   */
  async exclusive(op: (connection: DuckDBConnection) => Promise<void>): Promise<void> {
    await this.insertUnit();
    this.begin();
    await this.settle();
    await this.enqueue(op);
  }

  /** After a failure: waits for what is running, then rolls back every open transaction. */
  async abort(): Promise<void> {
    this.unit = [];
    await Promise.allSettled(this.queues);
    for (const c of this.connections) await c.run("ROLLBACK").catch(() => {});
  }
}
