import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import type { LoadedFile, LoadManifest, ManifestRow } from "../load/loadManifest.js";

export type { LoadedFile, LoadManifest, ManifestRow } from "../load/loadManifest.js";
import { duckdbApi } from "../base/duckdb.js";
import { putI64, putString, type ColumnKind, type StringColumn, type TableColumns } from "../load/columnBatch.js";
import { insertStaged } from "./insertColumns.js";

const hourKey = (accountId: number, hourEpoch: number): string => `${accountId}/${hourEpoch}`;

/** The account-hours a load may meet: each account's hours in `[startEpoch, endEpoch)`. */
export interface ManifestScope {
  accountId: number;
  startEpoch: number;
  endEpoch: number;
}
const rowKey = (source: string, sha256: string, status: string): string => `${status}\0${sha256}\0${source}`;

/** The rows of loaded files a window of the manifest holds, at most about (see {@link Manifest.cover}). */
const WINDOW_ROWS = 16_384;

/** An account's loaded files in the manifest: its first and last hours, and how many. */
interface AccountExtent {
  first: number;
  last: number;
  files: number;
}

/**
 * The manifest of one load: the rows already in the database and the rows and supersessions of
 * the current batch, written with the batch's data in one transaction by what
 * {@link Manifest.take} returns. Of the files loaded by earlier runs, only a window of hours of
 * one account is held (read as the reader reaches it, {@link Manifest.cover}), so a load's memory
 * does not grow with the files the warehouse or the load holds; the rows of files not loaded
 * (rejected, duplicates) are all held, to record each once.
 */
export class Manifest implements LoadManifest {
  /** Loaded files of the window, by account-hour. */
  private loaded = new Map<string, LoadedFile[]>();
  /** The account-hours the window covers: `all` when every row was read (a scoped manifest). */
  private window: { accountId: number; start: number; end: number } | "all" | undefined;
  /** Rows recorded that are not of a loaded file (rejected, duplicate), earlier runs' and this one's. */
  private readonly seen = new Set<string>();
  private pending: ManifestRow[] = [];
  private superseding: { accountId: number; hourEpoch: number; by: string }[] = [];
  private nextFileId: number;

  private constructor(
    private readonly connection: DuckDBConnection,
    readonly runId: number,
    nextFileId: number,
    private readonly extents: ReadonlyMap<number, AccountExtent>,
    private readonly windowRows: number,
    private readonly scope?: ReadonlyMap<number, ManifestScope>,
  ) {
    this.nextFileId = nextFileId;
  }

  /**
   * Reads the manifest of `connection` (empty for a new database) and starts run `runId`: the
   * rows of files not loaded, and where each account's loaded files lie (the files themselves are
   * read a window at a time, {@link Manifest.cover}). With `scope`, only the rows of those
   * account-hours (and those of no account-hour) are read, all at once: a sync's step knows what
   * its archives may hold (the download refuses anything else), and reading every row of a large
   * warehouse for each step was most of an hourly sync's time. Asking a scoped manifest about
   * another account-hour is a bug, and throws. `windowRows`: the loaded files a window holds, about.
   */
  static async read(
    connection: DuckDBConnection,
    scope?: readonly ManifestScope[],
    windowRows = WINDOW_ROWS,
  ): Promise<Manifest> {
    const ids = (
      await connection.runAndReadAll(
        "SELECT coalesce(max(file_id), 0) + 1 AS f, (SELECT coalesce(max(run_id), 0) + 1 FROM runs) AS r FROM files",
      )
    ).getRowObjectsJS()[0]!;
    const runId = Number(ids.r);
    const nextFileId = Number(ids.f);
    if (scope !== undefined) {
      const manifest = new Manifest(
        connection,
        runId,
        nextFileId,
        new Map(),
        windowRows,
        new Map(scope.map((s) => [s.accountId, s])),
      );
      manifest.window = "all";
      manifest.hold(await scopedRows(connection, scope));
      return manifest;
    }
    const extents = new Map<number, AccountExtent>();
    const accounts = await connection.runAndReadAll(
      `SELECT account_id, min(hour_epoch), max(hour_epoch), count(*) FROM files
       WHERE status = 'loaded' AND account_id IS NOT NULL AND hour_epoch IS NOT NULL GROUP BY account_id`,
    );
    for (const [a, first, last, files] of accounts.getRows()) {
      extents.set(Number(a), { first: Number(first), last: Number(last), files: Number(files) });
    }
    const manifest = new Manifest(connection, runId, nextFileId, extents, windowRows);
    manifest.hold(
      (
        await connection.runAndReadAll(
          "SELECT source, content_sha256, account_id, hour_epoch, status FROM files WHERE status NOT IN ('superseded', 'loaded')",
        )
      ).getRows(),
    );
    return manifest;
  }

  /** Holds rows read (source, content_sha256, account_id, hour_epoch, status). */
  private hold(rows: readonly (readonly DuckDBValue[])[]): void {
    for (const [source, sha256, accountId, hourEpoch, status] of rows) {
      if (status === "loaded")
        this.addLoaded(Number(accountId), Number(hourEpoch), { source: String(source), sha256: String(sha256) });
      else this.seen.add(rowKey(String(source), String(sha256), String(status)));
    }
  }

  /**
   * Makes the window hold `accountId`'s loaded files from `hourEpoch` on, for as many hours as
   * hold about `windowRows` files (judged from the account's first and last hours and its
   * count): a query when the account has files there, else none. The reader gives an account's
   * hours in order, so a window is read once; `undefined` when it holds the hour already.
   */
  cover(accountId: number, hourEpoch: number): Promise<void> | undefined {
    const w = this.window;
    if (w === "all" || (w !== undefined && w.accountId === accountId && hourEpoch >= w.start && hourEpoch < w.end))
      return undefined;
    this.loaded = new Map();
    const extent = this.extents.get(accountId);
    if (extent === undefined || hourEpoch > extent.last) {
      this.window = { accountId, start: hourEpoch, end: Infinity };
      return undefined;
    }
    if (hourEpoch < extent.first) {
      this.window = { accountId, start: hourEpoch, end: extent.first };
      return undefined;
    }
    const perHour = extent.files / ((extent.last - extent.first) / 3600 + 1);
    const end = hourEpoch + Math.max(1, Math.floor(this.windowRows / perHour)) * 3600;
    this.window = { accountId, start: hourEpoch, end };
    return this.readWindow(accountId, hourEpoch, end);
  }

  private async readWindow(accountId: number, start: number, end: number): Promise<void> {
    const rows = await this.connection.runAndReadAll(
      `SELECT source, content_sha256, account_id, hour_epoch, status FROM files
       WHERE status = 'loaded' AND account_id = $a AND hour_epoch >= $s AND hour_epoch < $e`,
      { a: accountId, s: start, e: end },
    );
    this.hold(rows.getRows());
  }

  private addLoaded(accountId: number, hourEpoch: number, file: LoadedFile): void {
    const key = hourKey(accountId, hourEpoch);
    const list = this.loaded.get(key);
    if (list) list.push(file);
    else this.loaded.set(key, [file]);
  }

  /** Throws when the manifest was read for other account-hours than this one (a bug: its rows would be missing). */
  private checkScope(accountId: number | null, hourEpoch: number | null): void {
    if (this.scope === undefined || accountId === null || hourEpoch === null) return;
    const s = this.scope.get(accountId);
    if (s === undefined || hourEpoch < s.startEpoch || hourEpoch >= s.endEpoch) {
      throw new Error(`the manifest was read for other account-hours than account ${accountId}, hour ${hourEpoch}`);
    }
  }

  /** The files loaded by earlier runs for an account-hour; empty when none. Throws unless {@link cover} made the window hold it. */
  loadedFiles(accountId: number, hourEpoch: number): LoadedFile[] {
    this.checkScope(accountId, hourEpoch);
    const w = this.window;
    if (w !== "all" && (w === undefined || w.accountId !== accountId || hourEpoch < w.start || hourEpoch >= w.end))
      throw new Error(`the manifest's window does not hold account ${accountId}, hour ${hourEpoch}`);
    return this.loaded.get(hourKey(accountId, hourEpoch)) ?? [];
  }

  /**
   * Records a row, written by the next flush; a row already present is not written twice. (A
   * loaded file is never recorded twice: an account-hour whose files are loaded gives no job,
   * and the reader gives each account-hour once.)
   */
  add(row: ManifestRow): void {
    this.checkScope(row.accountId, row.hourEpoch);
    if (row.status !== "loaded") {
      const key = rowKey(row.source, row.sha256, row.status);
      if (this.seen.has(key)) return;
      this.seen.add(key);
    }
    this.pending.push(row);
  }

  /**
   * Marks the loaded files of an account-hour superseded (by `by`, a display name) and
   * forgets them; the next flush updates their rows and the caller deletes their data.
   */
  supersede(accountId: number, hourEpoch: number, by: string): void {
    this.checkScope(accountId, hourEpoch);
    this.loaded.delete(hourKey(accountId, hourEpoch));
    this.superseding.push({ accountId, hourEpoch, by });
  }

  /**
   * Takes the pending rows and supersessions (file ids are given now, in order): the
   * function returned writes them in a connection's current transaction, whenever it runs.
   */
  take(): (connection: DuckDBConnection) => Promise<void> {
    const superseding = this.superseding;
    const rows = manifestColumns(this.pending, this.nextFileId);
    this.nextFileId += this.pending.length;
    this.superseding = [];
    this.pending = [];
    const runId = this.runId;
    return async (connection) => {
      for (const s of superseding) {
        await connection.run(
          "UPDATE files SET status = 'superseded', reason = $reason WHERE account_id = $a AND hour_epoch = $h AND status = 'loaded'",
          { reason: `replaced by ${s.by}`, a: s.accountId, h: s.hourEpoch },
        );
      }
      // Staged as columns and read by DuckDB a chunk at a time, on its own thread: list
      // parameters made a value per row and column (most of a load's binding CPU), held
      // whole outside DuckDB's memory cap; an appender's flush ran on the JavaScript thread.
      if (rows.rows > 0) await insertRows(connection, rows, runId);
    };
  }
}

/** The rows of `scope`'s account-hours and of no account-hour, not superseded. */
async function scopedRows(connection: DuckDBConnection, scope: readonly ManifestScope[]): Promise<DuckDBValue[][]> {
  const columns = "SELECT source, content_sha256, account_id, hour_epoch, status FROM files";
  const { BIGINT, LIST, listValue } = duckdbApi();
  const read = await connection.runAndReadAll(
    `${columns} WHERE status <> 'superseded' AND (account_id IS NULL OR hour_epoch IS NULL)
     UNION ALL
     ${columns} JOIN (SELECT unnest($a) AS a, unnest($s) AS s, unnest($e) AS e) q ON account_id = q.a AND hour_epoch >= q.s AND hour_epoch < q.e
     WHERE status <> 'superseded'`,
    {
      a: listValue(scope.map((s) => BigInt(s.accountId))),
      s: listValue(scope.map((s) => BigInt(s.startEpoch))),
      e: listValue(scope.map((s) => BigInt(s.endEpoch))),
    },
    { a: LIST(BIGINT), s: LIST(BIGINT), e: LIST(BIGINT) },
  );
  return read.getRows();
}

/** How the columns of a manifest row are staged: file_id, content_sha256, source, account_id, hour_epoch, size_bytes, status, reason, code. */
const ROW_KINDS: readonly ColumnKind[] = ["i64", "str", "str", "i64null", "i64null", "i64", "str", "str", "str"];

/** `rows` as staged columns, their file ids from `firstFileId` on; a NULL reason or code is staged as '' (never a reason or code of its own). */
export function manifestColumns(rows: readonly ManifestRow[], firstFileId: number): TableColumns {
  const n = rows.length;
  const ids = new Int32Array(2 * n);
  const sizes = new Int32Array(2 * n);
  const accounts = { kind: "i64null" as const, values: new Int32Array(2 * n), valid: new Uint8Array(n) };
  const hours = { kind: "i64null" as const, values: new Int32Array(2 * n), valid: new Uint8Array(n) };
  const strings = [0, 1, 2, 3, 4].map(() => {
    const words = new Int32Array(4 * n);
    const column: StringColumn = { kind: "str", records: new Uint8Array(words.buffer), longRows: [], longValues: [] };
    return { column, words };
  });
  rows.forEach((row, r) => {
    putI64(ids, r, firstFileId + r);
    putI64(sizes, r, row.sizeBytes);
    if (row.accountId !== null) putI64(accounts.values, r, row.accountId);
    accounts.valid[r] = row.accountId === null ? 0 : 1;
    if (row.hourEpoch !== null) putI64(hours.values, r, row.hourEpoch);
    hours.valid[r] = row.hourEpoch === null ? 0 : 1;
    [row.sha256, row.source, row.status, row.reason ?? "", row.code ?? ""].forEach((value, i) =>
      putString(strings[i]!.words, strings[i]!.column, r, value),
    );
  });
  const [sha256, source, status, reason, code] = strings.map((s) => s.column);
  return {
    rows: n,
    columns: [
      { kind: "i64", values: ids },
      sha256!,
      source!,
      accounts,
      hours,
      { kind: "i64", values: sizes },
      status!,
      reason!,
      code!,
    ],
  };
}

/** Inserts staged manifest rows (see {@link manifestColumns}) of run `runId`, in the connection's current transaction. */
async function insertRows(connection: DuckDBConnection, rows: TableColumns, runId: number): Promise<void> {
  await insertStaged(
    connection,
    (staged) =>
      `INSERT INTO files (file_id, content_sha256, source, account_id, hour_epoch, size_bytes, loaded_at, status, reason, code, run_id)
       SELECT c0, c1, c2, c3, c4, c5, to_timestamp($now_us / 1000000), c6, nullif(c7, ''), nullif(c8, ''), $run FROM ${staged}`,
    ROW_KINDS,
    [rows],
    { now_us: BigInt(Date.now()) * 1000n, run: BigInt(runId) },
  );
}
