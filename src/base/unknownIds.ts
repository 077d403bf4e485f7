import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "./errors.js";

/** How many known ids an unknown-id message lists at most (the nearest ones). */
const SHOWN = 10;

/**
 * Throws a UsageError (code UNKNOWN_ID, exit 2) when an id of `given` is not in `known`: an
 * unknown account, cloud space or machine is an error, never a zero. The message names every
 * unknown id and the known ones (the nearest to the first unknown when there are many).
 */
export function checkKnownIds(kind: string, given: readonly number[], known: Iterable<number>, where: string): void {
  const knownSet = new Set(known);
  const unknown = given.filter((id) => !knownSet.has(id));
  if (unknown.length === 0) return;
  const sorted = [...knownSet].sort((a, b) => a - b);
  const nearest =
    sorted.length <= SHOWN
      ? sorted
      : [...sorted]
          .sort((a, b) => Math.abs(a - unknown[0]!) - Math.abs(b - unknown[0]!) || a - b)
          .slice(0, SHOWN)
          .sort((a, b) => a - b);
  const list =
    sorted.length === 0
      ? "none"
      : sorted.length <= SHOWN
        ? nearest.join(", ")
        : `${nearest.join(", ")} (the nearest of ${sorted.length})`;
  throw new UsageError(`unknown ${kind} ${unknown.join(", ")} (not in ${where}); known: ${list}`, {
    code: "UNKNOWN_ID",
  });
}

/** The kinds of id a warehouse knows. */
export type IdKind = "account" | "cloudspace" | "machine";

/**
 * Where each kind's ids are: the data tables, and for accounts and cloud spaces also the
 * names `sync` stored from the service's lists (an account listed without hours yet is known:
 * its bill is 0, not an error). `$account` narrows to one account.
 */
const KNOWN_SQL: Record<IdKind, { any: string; ofAccount: string }> = {
  account: {
    any: "SELECT account_id AS id FROM account_hours UNION SELECT id FROM entity_names WHERE kind = 'account'",
    ofAccount: "SELECT account_id AS id FROM account_hours WHERE account_id = $account",
  },
  cloudspace: {
    any: "SELECT cloudspace_id AS id FROM cloudspaces UNION SELECT id FROM entity_names WHERE kind = 'cloudspace'",
    ofAccount:
      "SELECT cloudspace_id AS id FROM cloudspaces WHERE account_id = $account UNION SELECT id FROM entity_names WHERE kind = 'cloudspace' AND account_id = $account",
  },
  machine: {
    any: "SELECT machine_id AS id FROM machines",
    ofAccount: "SELECT machine_id AS id FROM machines WHERE account_id = $account",
  },
};

/**
 * Throws a UsageError (UNKNOWN_ID, exit 2) when the warehouse has never seen `id` (in any
 * hour: an id known without samples in a period is not an error), listing the known ids or
 * the nearest; with `accountId`, among that account's only.
 */
export async function checkKnownInWarehouse(
  connection: DuckDBConnection,
  kind: IdKind,
  id: number,
  accountId?: number,
): Promise<void> {
  const sql = accountId === undefined ? KNOWN_SQL[kind].any : KNOWN_SQL[kind].ofAccount;
  const params: Record<string, bigint> = {
    id: BigInt(id),
    ...(accountId === undefined ? {} : { account: BigInt(accountId) }),
  };
  const found = await connection.runAndReadAll(
    `SELECT EXISTS (SELECT 1 FROM (${sql}) WHERE id = $id) AS found`,
    params,
  );
  if (found.getRowObjectsJS()[0]!.found === true) return;
  const known = (
    await connection.runAndReadAll(
      `SELECT DISTINCT id FROM (${sql}) ORDER BY id`,
      accountId === undefined ? {} : { account: BigInt(accountId) },
    )
  )
    .getRowObjectsJS()
    .map((r) => Number(r.id));
  checkKnownIds(
    kind === "cloudspace" ? "cloud space" : kind,
    [id],
    known,
    accountId === undefined ? "the data" : `account ${accountId}'s data`,
  );
}
