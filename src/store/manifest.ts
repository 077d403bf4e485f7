import type { DuckDBConnection, DuckDBValue } from "@duckdb/node-api";
import type { FileStatus, LoadedFile, LoadManifest, ManifestRow } from "../load/loadManifest.js";

export type { LoadedFile, LoadManifest, ManifestRow } from "../load/loadManifest.js";
import { duckdbApi } from "../base/duckdb.js";

const hourKey = (accountId: number, hourEpoch: number): string => `${accountId}/${hourEpoch}`;

/** The account-hours a load may meet: each account's hours in `[startEpoch, endEpoch)`. */
export interface ManifestScope {
  accountId: number;
  startEpoch: number;
  endEpoch: number;
}
const rowKey = (source: string, sha256: string, status: string): string => `${status}\0${sha256}\0${source}`;

/**
 * The manifest of one load: the rows already in the database (read once at the start)
 * and the rows and supersessions of the current batch, written with the batch's data in
 * one transaction by what {@link Manifest.take} returns.
 */
export class Manifest implements LoadManifest {
  private readonly loaded = new Map<string, LoadedFile[]>();
  private readonly seen = new Set<string>();
  private pending: ManifestRow[] = [];
  private superseding: { accountId: number; hourEpoch: number; by: string }[] = [];
  private nextFileId: number;

  private constructor(
    readonly runId: number,
    nextFileId: number,
    private readonly scope?: ReadonlyMap<number, ManifestScope>,
  ) {
    this.nextFileId = nextFileId;
  }

  /**
   * Reads the manifest of `connection` (empty for a new database) and starts run `runId`.
   * With `scope`, only the rows of those account-hours (and those of no account-hour) are
   * read: a sync's step knows what its archives may hold (the download refuses anything else),
   * and reading every row of a large warehouse for each step was most of an hourly sync's time.
   * Asking a scoped manifest about another account-hour is a bug, and throws.
   */
  static async read(connection: DuckDBConnection, scope?: readonly ManifestScope[]): Promise<Manifest> {
    const ids = (
      await connection.runAndReadAll(
        "SELECT coalesce(max(file_id), 0) + 1 AS f, (SELECT coalesce(max(run_id), 0) + 1 FROM runs) AS r FROM files",
      )
    ).getRowObjectsJS()[0]!;
    const manifest = new Manifest(Number(ids.r), Number(ids.f), scope && new Map(scope.map((s) => [s.accountId, s])));
    const columns = "SELECT source, content_sha256, account_id, hour_epoch, status FROM files";
    const { BIGINT, LIST, listValue } = duckdbApi();
    const rows = (
      scope === undefined
        ? await connection.runAndReadAll(`${columns} WHERE status <> 'superseded'`)
        : await connection.runAndReadAll(
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
          )
    ).getRows();
    for (const [source, sha256, accountId, hourEpoch, status] of rows) {
      manifest.seen.add(rowKey(String(source), String(sha256), String(status)));
      if (status === "loaded")
        manifest.addLoaded(Number(accountId), Number(hourEpoch), { source: String(source), sha256: String(sha256) });
    }
    return manifest;
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

  /** The files loaded for an account-hour (earlier runs and this one); empty when none. */
  loadedFiles(accountId: number, hourEpoch: number): LoadedFile[] {
    this.checkScope(accountId, hourEpoch);
    return this.loaded.get(hourKey(accountId, hourEpoch)) ?? [];
  }

  /** True when the manifest already holds this file (same name, same bytes) with this status. */
  has(source: string, sha256: string, status: FileStatus): boolean {
    return this.seen.has(rowKey(source, sha256, status));
  }

  /** Records a row, written by the next flush; a row already present is not written twice. */
  add(row: ManifestRow): void {
    this.checkScope(row.accountId, row.hourEpoch);
    const key = rowKey(row.source, row.sha256, row.status);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.pending.push(row);
    if (row.status === "loaded" && row.accountId !== null && row.hourEpoch !== null) {
      this.addLoaded(row.accountId, row.hourEpoch, { source: row.source, sha256: row.sha256 });
    }
  }

  /**
   * Marks the loaded files of an account-hour superseded (by `by`, a display name) and
   * forgets them; the next flush updates their rows and the caller deletes their data.
   */
  supersede(accountId: number, hourEpoch: number, by: string): void {
    for (const f of this.loadedFiles(accountId, hourEpoch)) this.seen.delete(rowKey(f.source, f.sha256, "loaded"));
    this.loaded.delete(hourKey(accountId, hourEpoch));
    this.superseding.push({ accountId, hourEpoch, by });
  }

  /**
   * Takes the pending rows and supersessions (file ids are given now, in order): the
   * function returned writes them in a connection's current transaction, whenever it runs.
   */
  take(): (connection: DuckDBConnection) => Promise<void> {
    const superseding = this.superseding;
    const rows = this.pending.map((row) => ({ fileId: this.nextFileId++, ...row }));
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
      if (rows.length === 0) return;
      // One INSERT of list parameters, run on DuckDB's thread: an appender's flush ran on the
      // JavaScript thread and waited there while the other batch's COMMIT held
      // the database, stalling the reading, decoding and inserts it feeds.
      const { BIGINT, LIST, VARCHAR, listValue } = duckdbApi();
      const column = (get: (row: (typeof rows)[number]) => DuckDBValue) => listValue(rows.map(get));
      await connection.run(
        `INSERT INTO files (file_id, content_sha256, source, account_id, hour_epoch, size_bytes, loaded_at, status, reason, code, run_id)
         SELECT unnest($ids), unnest($sha256), unnest($sources), unnest($accounts), unnest($hours), unnest($sizes),
                to_timestamp($now_us / 1000000), unnest($statuses), unnest($reasons), unnest($codes), $run`,
        {
          ids: column((r) => BigInt(r.fileId)),
          sha256: column((r) => r.sha256),
          sources: column((r) => r.source),
          accounts: column((r) => (r.accountId === null ? null : BigInt(r.accountId))),
          hours: column((r) => (r.hourEpoch === null ? null : BigInt(r.hourEpoch))),
          sizes: column((r) => BigInt(r.sizeBytes)),
          now_us: BigInt(Date.now()) * 1000n,
          statuses: column((r) => r.status),
          reasons: column((r) => r.reason),
          codes: column((r) => r.code),
          run: BigInt(runId),
        },
        {
          ids: LIST(BIGINT),
          sha256: LIST(VARCHAR),
          sources: LIST(VARCHAR),
          accounts: LIST(BIGINT),
          hours: LIST(BIGINT),
          sizes: LIST(BIGINT),
          now_us: BIGINT,
          statuses: LIST(VARCHAR),
          reasons: LIST(VARCHAR),
          codes: LIST(VARCHAR),
          run: BIGINT,
        },
      );
    };
  }
}
