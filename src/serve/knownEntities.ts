import type { Warehouse } from "../store/types.js";
import { chosenMonth, monthsOf } from "./months.js";
import { notInWarehouse } from "./notFound.js";

/** The kinds of page that show one entity. */
export type EntityKind = "account" | "machine" | "cloudspace";

/** First and last hour an entity has samples in, epoch seconds. */
interface Span {
  first: number;
  last: number;
}

/**
 * What the warehouse holds, by id: the accounts, machines and cloud spaces, each with its first
 * and last hour, and the warehouse's own first and last hour. Read in one query per version of
 * the warehouse, so a page for an unknown id or month is refused without computing anything.
 */
export interface KnownEntities {
  period: Span | null;
  ids: Record<EntityKind, ReadonlyMap<number, Span>>;
}

const KNOWN_SQL = `
  SELECT 'account' AS kind, account_id AS id, min(hour_epoch) AS first, max(hour_epoch) AS last FROM account_hours GROUP BY account_id
  UNION ALL SELECT 'machine', machine_id, min(hour_epoch), max(hour_epoch) FROM machines GROUP BY machine_id
  UNION ALL SELECT 'cloudspace', cloudspace_id, min(hour_epoch), max(hour_epoch) FROM cloudspaces GROUP BY cloudspace_id`;

/** The ids the warehouse holds (see {@link KnownEntities}). */
export async function knownEntities(store: Warehouse): Promise<KnownEntities> {
  const ids: Record<EntityKind, Map<number, Span>> = { account: new Map(), machine: new Map(), cloudspace: new Map() };
  for (const row of (await store.connection.runAndReadAll(KNOWN_SQL)).getRowObjectsJS()) {
    ids[row.kind as EntityKind].set(Number(row.id), { first: Number(row.first), last: Number(row.last) });
  }
  const accounts = [...ids.account.values()];
  const period =
    accounts.length === 0
      ? null
      : { first: Math.min(...accounts.map((s) => s.first)), last: Math.max(...accounts.map((s) => s.last)) };
  return { period, ids };
}

const NAMES: Record<EntityKind, string> = { account: "account", machine: "machine", cloudspace: "cloud space" };

/**
 * NotFoundError, with the page's own message, for an id the warehouse does not hold or a month
 * it (for a machine or cloud space: the entity) holds no hour of; else nothing. `month`
 * undefined: the default month, always held.
 */
export function checkKnown(
  known: KnownEntities,
  kind: EntityKind | "overview",
  id: number,
  month: string | undefined,
): void {
  if (kind === "overview" || kind === "account") {
    if (kind === "account" && !known.ids.account.has(id)) throw notInWarehouse(`account ${id}`);
    if (known.period !== null)
      chosenMonth(
        monthsOf({ period: { firstHourEpoch: known.period.first, lastHourEpoch: known.period.last } }),
        month,
        "the warehouse",
      );
    return;
  }
  const span = known.ids[kind].get(id);
  const what = `${NAMES[kind]} ${id}`;
  if (!span) throw notInWarehouse(what);
  chosenMonth(
    monthsOf({ period: { firstHourEpoch: span.first, lastHourEpoch: span.last } }),
    month,
    `the samples of ${what}`,
  );
}
