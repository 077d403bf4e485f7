import { listAccountHours } from "../input/listAccountHours.js";
import type { BillSource } from "./bill.js";
import { isFiles } from "./sourceRoad.js";

/** The hours a source holds: from the first hour's start to the last hour's end, epoch seconds. */
export interface HeldSpan {
  start: number;
  end: number;
}

/**
 * The span of the hours `source` holds (of `accountId`'s account alone, when given), or null
 * when it holds none: what an empty period's warning names, so that a user who asked for the
 * wrong month sees which months the data covers. Input files are listed by their paths, not read.
 */
export async function heldSpan(
  source: BillSource,
  accountId: number | undefined,
  packed = false,
): Promise<HeldSpan | null> {
  if (isFiles(source)) {
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (const { accountId: id, hourEpoch } of (await listAccountHours([...source], { packed })).accountHours) {
      if (accountId !== undefined && id !== accountId) continue;
      start = Math.min(start, hourEpoch);
      end = Math.max(end, hourEpoch + 3600);
    }
    return start < end ? { start, end } : null;
  }
  const reader = await source.connection.runAndReadAll(
    `SELECT min(hour_epoch), max(hour_epoch) FROM account_hours${accountId === undefined ? "" : " WHERE account_id = $account"}`,
    accountId === undefined ? undefined : { account: accountId },
  );
  const [first, last] = reader.getRowsJS()[0]!;
  return first === null || first === undefined ? null : { start: Number(first), end: Number(last) + 3600 };
}
