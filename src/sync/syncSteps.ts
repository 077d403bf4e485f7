import { BadFileError, BadInputError, ConflictError, type CloudunitsError } from "../base/errors.js";
import { ingestInto, type OpenedWarehouse } from "../store/ingest.js";
import { countAccountHours, stopsSync, type AccountIngest, type AccountSync, type RunContext } from "./syncAccount.js";
import { readAccountSpans, readHeldHours, recordChunks, recordResults } from "./syncState.js";

/**
 * Downloads running at once, by default: an hourly run asks each account for a few hours, and
 * one download at a time left the run waiting on the round trips (the platform answers
 * accounts independently). Four keep a round trip's wait covered without crowding the platform.
 */
export const DEFAULT_DOWNLOADS = 4;

/** The name each archive of `accountId` goes by in the manifest and in messages. */
const inputName = (accountId: number) => `getConsumption(account ${accountId})`;
const INPUT_NAME = /^getConsumption\(account (\d+)\)/;

/** The account a bad file or conflict of a step's ingest belongs to (by its name), or undefined. */
function accountOf(error: BadFileError | ConflictError): number | undefined {
  if (error instanceof ConflictError) return error.accountId;
  const m = INPUT_NAME.exec(error.file);
  return m ? Number(m[1]) : undefined;
}

/**
 * Ingests the archives of every account of a step in one load (one manifest read, one commit
 * per batch), and says what it did for each: its account-hours loaded (from the manifest rows of
 * the load's run), replaced, and its bad files (a bad file no account's name claims fails every
 * account of the step, whose chunks are then asked again by the next run).
 */
async function ingestTogether(
  opened: OpenedWarehouse,
  accounts: readonly AccountSync[],
  run: RunContext,
): Promise<Map<number, AccountIngest>> {
  const files = accounts.flatMap((a) => a.files);
  const out = new Map<number, AccountIngest>(accounts.map((a) => [a.accountId, { loadedHours: 0, replaced: [] }]));
  if (files.length === 0) return out;
  const { report, errors } = await ingestInto(
    opened,
    [...files],
    {
      db: run.db,
      inputNames: accounts.flatMap((a) => a.files.map(() => inputName(a.accountId))),
      replace: run.replace,
      skipBad: run.skipBad,
    },
    accounts.flatMap((a) => a.stepScope ?? []),
  );
  const loaded = await opened.connection.runAndReadAll(
    `SELECT account_id, count(DISTINCT hour_epoch) AS n FROM files
     WHERE run_id = (SELECT max(run_id) FROM runs) AND status = 'loaded' AND account_id IS NOT NULL GROUP BY 1`,
  );
  for (const [accountId, n] of loaded.getRows()) {
    const a = out.get(Number(accountId));
    if (a) a.loadedHours += Number(n);
  }
  for (const r of report.replaced) {
    const a = out.get(r.accountId)!;
    a.replaced.push(r.hourEpoch);
    a.loadedHours--;
  }
  const bad = new Map<number | undefined, (BadFileError | ConflictError)[]>();
  for (const e of errors) {
    const id = accountOf(e);
    const key = id !== undefined && out.has(id) ? id : undefined;
    bad.set(key, [...(bad.get(key) ?? []), e]);
  }
  for (const [id, a] of out) {
    const own = [...(bad.get(id) ?? []), ...(bad.get(undefined) ?? [])];
    if (own.length > 0) a.error = new BadInputError(own);
  }
  return out;
}

/** An account's ingest that threw `error`. */
const failed = (error: unknown): AccountIngest => ({ loadedHours: 0, replaced: [], error: error as CloudunitsError });

/**
 * One step: one open of the warehouse for every account with something to write. The
 * accounts' archives are ingested together; then each account records its chunks (after the
 * ingest's commits) and, when done, its result. An ingest that fails otherwise than by the
 * warehouse or the machine (which stop the sync) is tried again account by account, so the
 * account at fault fails alone.
 */
async function writeStep(accounts: readonly AccountSync[], run: RunContext): Promise<AccountSync[]> {
  await run.withDatabase(async (connection, opened) => {
    for (const a of accounts) a.reportIngest();
    const withFiles = accounts.filter((a) => a.files.length > 0);
    const ingested = await ingestTogether(opened, withFiles, run).catch(async (error: unknown) => {
      if (stopsSync(error)) throw error;
      // one account's archives: its failure (a second try would find the batches committed before as duplicates)
      if (withFiles.length === 1) return new Map([[withFiles[0]!.accountId, failed(error)]]);
      const each = new Map<number, AccountIngest>();
      for (const a of withFiles) {
        each.set(
          a.accountId,
          await ingestTogether(opened, [a], run).then(
            (one) => one.get(a.accountId)!,
            (second: unknown) => {
              if (stopsSync(second)) throw second;
              return failed(second);
            },
          ),
        );
      }
      return each;
    });
    const held = await readHeldHours(
      connection,
      accounts.flatMap((a) => a.stepScope ?? []),
    );
    await recordChunks(
      connection,
      accounts.flatMap((a) => a.stepRecord(ingested.get(a.accountId), held.get(a.accountId) ?? new Set()) ?? []),
    );
    const finishing = accounts.flatMap((a) => (a.spanQuery ? [a] : []));
    const spans = await readAccountSpans(
      connection,
      finishing.map((a) => a.spanQuery!),
      run.currentHourEpoch,
    );
    await recordResults(
      connection,
      finishing.map((a) => a.settle(spans.get(a.accountId)!)),
      run.runId,
    );
    run.totalAccountHours = await countAccountHours(connection);
  });
  const done: AccountSync[] = [];
  for (const a of accounts) if (await a.endStep()) done.push(a);
  return done;
}

/**
 * Downloads chunks, up to `downloads` at once, each account's in order and one at a time,
 * accounts in turn from the first, until the archives downloaded reach `stepBytes` (at least
 * one is downloaded) or nothing is left to ask. A failure that stops the sync is thrown once
 * the downloads in flight have ended.
 */
async function downloadRound(accounts: readonly AccountSync[], run: RunContext, downloads: number): Promise<void> {
  let started = 0;
  let bytes = 0;
  let from = 0; // the accounts before it download nothing more in this round
  const nextAccount = (): AccountSync | undefined => {
    if (started > 0 && bytes >= run.stepBytes) return undefined;
    while (from < accounts.length && accounts[from]!.downloadsDone) from++;
    for (let i = from; i < accounts.length; i++) if (accounts[i]!.wantsDownload) return accounts[i];
    return undefined;
  };
  let stop: unknown;
  const worker = async () => {
    for (let a = nextAccount(); a !== undefined && stop === undefined; a = nextAccount()) {
      started++;
      try {
        bytes += await a.download();
      } catch (error) {
        stop ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, downloads) }, worker));
  if (stop !== undefined) throw stop;
}

/**
 * Syncs the accounts of a run: rounds of downloads (see {@link downloadRound}), each followed by
 * a step that writes what every account downloaded; `onAccount` as each account is done.
 */
export async function syncAccounts(
  accounts: readonly AccountSync[],
  run: RunContext,
  downloads: number,
  onAccount?: (a: AccountSync) => void,
): Promise<void> {
  for (;;) {
    await downloadRound(accounts, run, downloads);
    const ready = accounts.filter((a) => a.wantsStep);
    if (ready.length === 0) return;
    for (const a of await writeStep(ready, run)) onAccount?.(a);
  }
}
