import { cuRuleSentence } from "../billing/units.js";
import type { DuckDBConnection } from "@duckdb/node-api";
import { duckdbApi } from "../base/duckdb.js";
import { bill } from "../billEntry/bill.js";
import type { BillingOptions } from "../billing/billingOptions.js";
import type { Period } from "../base/period.js";
import { currencyOf, type PriceList } from "../billing/prices.js";
import { UsageError } from "../base/errors.js";
import { nameOf, type Names } from "../billing/names.js";
import type { NamedEntity } from "./entityLabel.js";
import { withStoredNames } from "./storedNames.js";
import { warehouseLag, type WarehouseLag } from "./warehouseLag.js";
import { METRICS, type Metric } from "./usageTable.js";
import { Exact } from "../billing/exact.js";
import { machineFigures } from "./topMachines.js";

/** An entity's figures over a period: its units as numbers, its cost (money) as an `Exact`; null when it has none. */
export type TopFigures = Record<Exclude<Metric, "cost">, number | null> & { cost: Exact | null };

/** One figure as a number (a chart's): the cost's nearest float. */
const figureNumber = (figures: TopFigures, by: Metric): number | null =>
  by === "cost" ? (figures.cost?.toNumber() ?? null) : figures[by];

/** What `top` ranks. */
export type TopLevel = "account" | "cloudspace" | "machine";
export const TOP_LEVELS: readonly TopLevel[] = ["machine", "cloudspace", "account"];

/** What to rank. */
export interface TopRequest extends Period {
  /** The figure ranked by: CU, SU, TU (unit-hours), NU (TiB) or cost (needs `prices`). */
  by: Metric;
  /** Default machine. */
  level?: TopLevel;
  /** Rows kept; default 10. */
  limit?: number;
  prices?: PriceList;
  /**
   * The period compared with. Default: for a calendar month, the month before, or while the
   * month runs (the hours held end inside it) the same days of the month before; else the
   * period of the same length just before.
   */
  previous?: { start: number; end: number };
  options?: BillingOptions;
  /** Now (epoch seconds): the report then says how far behind it the warehouse is (`lag`). */
  nowEpoch?: number;
}

/** One ranked entity. */
export interface TopRow extends NamedEntity {
  rank: number;
  level: TopLevel;
  /** The figure ranked by, over the period, as a number (by cost: `figures.cost`'s nearest float). */
  value: number;
  /** Over the previous period; null when the entity had no line then. */
  previous: number | null;
  /** (value − previous) / previous; null when there is no previous value or it is 0. */
  change: number | null;
  /**
   * Its CU, SU, TU (unit-hours; a machine's own CU), NU (TiB; a machine's own external NICs) and cost
   * (its invoice or allocated share, an `Exact` in `currency`: ranked by cost, rows are ordered by it exactly).
   */
  figures: TopFigures;
  /** With a price list: the currency of its cost (its account's: a customer may bill in its own). */
  currency?: string;
}

/** A ranking. */
export interface TopReport {
  start: number;
  end: number;
  /** A calendar month still running: the hours held end here, inside the period (epoch seconds); its figures are the month to date. */
  heldUntil?: number;
  previous: { start: number; end: number };
  /** What `previous` is, in words: `the month before`, `the same days of the month before`, `the period as long just before`, `the period given`. */
  comparedWith: string;
  by: Metric;
  level: TopLevel;
  /** The price list's currency; each row says its own (`TopRow.currency`). */
  currency?: string;
  /**
   * Ranked by cost over entities billed in several currencies: each currency ranked apart (ranks
   * from 1 and `limit` rows in each, the list's currency first), as two currencies are never compared.
   */
  currencies?: string[];
  /** The CU rule of the CU figures, in a sentence (`CU rule: aggregate (...)`). */
  cuRule: string;
  /** Entities with a line in the period, before the limit. */
  entities: number;
  rows: TopRow[];
  /** How far the warehouse is behind the request's `nowEpoch` (with it). */
  lag?: WarehouseLag;
}

/** True when `[start, end)` is one calendar month (UTC). */
function isMonth(start: number, end: number): boolean {
  const s = new Date(start * 1000);
  const e = new Date(end * 1000);
  return (
    s.getUTCDate() === 1 &&
    e.getUTCDate() === 1 &&
    s.getUTCHours() === 0 &&
    e.getUTCHours() === 0 &&
    e.getUTCFullYear() * 12 + e.getUTCMonth() - (s.getUTCFullYear() * 12 + s.getUTCMonth()) === 1
  );
}

/**
 * The period before `[start, end)`: the calendar month before when it is a calendar month
 * (with `heldUntil` inside it, a month still running: the same days of the month before, as
 * many hours from its start as are held, within it), else as long.
 */
export function previousPeriod(start: number, end: number, heldUntil?: number): { start: number; end: number } {
  if (!isMonth(start, end)) return { start: start - (end - start), end: start };
  const s = new Date(start * 1000);
  const before = Date.UTC(s.getUTCFullYear(), s.getUTCMonth() - 1, 1) / 1000;
  if (heldUntil === undefined || heldUntil <= start || heldUntil >= end) return { start: before, end: start };
  return { start: before, end: Math.min(start, before + (heldUntil - start)) };
}

/** The hour after the last one held (of one account, or of any), epoch seconds; undefined when none is. */
async function heldUntilOf(connection: DuckDBConnection, accountId: number | undefined): Promise<number | undefined> {
  const reader = await connection.runAndReadAll(
    "SELECT max(hour_epoch)::DOUBLE AS last FROM account_hours WHERE $account IS NULL OR account_id = $account",
    { account: accountId === undefined ? null : BigInt(accountId) },
    { account: duckdbApi().BIGINT },
  );
  const last = reader.getRowObjectsJS()[0]?.last;
  return last === null || last === undefined ? undefined : Number(last) + 3600;
}

/** An entity of the level ranked (its ids, those below the level null) and its figures: no line object, as a month holds 20,000 machines. */
export interface TopEntity {
  accountId: number;
  cloudspaceId: number | null;
  machineId: number | null;
  figures: TopFigures;
}

/** The name of an entity of a level, and those of the account and cloud space it is in. */
function namesOf(
  entity: TopEntity,
  level: TopLevel,
  names: Names | undefined,
): { name: string; accountName: string; cloudspaceName: string | null } {
  const id = level === "account" ? entity.accountId : level === "cloudspace" ? entity.cloudspaceId : entity.machineId;
  return {
    name: nameOf(names, level, id!),
    accountName: nameOf(names, "account", entity.accountId),
    cloudspaceName: entity.cloudspaceId === null ? null : nameOf(names, "cloudspace", entity.cloudspaceId),
  };
}

const keyOf = (e: Omit<TopEntity, "figures">) => `${e.accountId}:${e.cloudspaceId}:${e.machineId}`;

/** Each entity of a level with a line in the period, and its figures. */
async function figuresOf(
  connection: DuckDBConnection,
  params: Period,
  level: TopLevel,
  prices: PriceList | undefined,
  options: BillingOptions,
): Promise<TopEntity[]> {
  // machines by their own units: grouped per configuration, not every machine-hour through every level
  const machines =
    level === "machine" && prices === undefined ? await machineFigures(connection, params, options) : undefined;
  if (machines !== undefined) return machines;
  const { report } = await bill({
    source: { connection },
    period: params,
    prices,
    rules: options,
    skipBad: true,
    allowEmpty: true,
    // by a unit, the level's lines alone (the accounts' come grouped, without a machine); a cost is a share of its account's invoice
    ...(prices === undefined ? { produce: { levels: [level] } } : {}),
  }); // impossible values count as 0
  const out: TopEntity[] = [];
  report.lines.forEach((line, i) => {
    if (line.level !== level) return;
    const q = line.quantities;
    const money = report.money?.[i];
    out.push({
      accountId: line.accountId!,
      cloudspaceId: line.cloudspaceId,
      machineId: line.machineId,
      figures: {
        CU: q.CU,
        SU: q.SU,
        TU: q.TU,
        NU: line.level === "machine" ? line.ownNicNu : q.NU,
        cost: money ? money.amount : null,
      },
    });
  });
  return out;
}

/**
 * The figure `request.by` of each line of a level over a period, by entity: one number each, so
 * that the period's lines are let go before the next period's are made.
 */
async function figureOfEach(
  connection: DuckDBConnection,
  params: Period,
  level: TopLevel,
  request: TopRequest,
  options: BillingOptions,
): Promise<Map<string, number | null>> {
  const out = new Map<string, number | null>();
  for (const entity of await figuresOf(connection, params, level, request.prices, options))
    out.set(keyOf(entity), figureNumber(entity.figures, request.by));
  return out;
}

/** The largest figure first (costs compared as Exacts), ties by account, cloud space, then machine id. */
const rankOrder =
  (by: Metric) =>
  (a: TopEntity, b: TopEntity): number =>
    (by === "cost"
      ? (b.figures.cost ?? Exact.ZERO).compare(a.figures.cost ?? Exact.ZERO)
      : (b.figures[by] ?? 0) - (a.figures[by] ?? 0)) ||
    a.accountId - b.accountId ||
    (a.cloudspaceId ?? 0) - (b.cloudspaceId ?? 0) ||
    (a.machineId ?? 0) - (b.machineId ?? 0);

/**
 * The ranked entities in groups of `limit` at most: by cost over several currencies, a group per
 * currency (the list's first), as 150 JPY is not more than 0.06 EUR; else one group.
 */
function perCurrency<R extends TopEntity>(ranked: R[], request: TopRequest, limit: number) {
  const currencyOfEntity = (e: TopEntity) =>
    request.prices ? currencyOf(request.prices, e.accountId).currency : undefined;
  const currencies =
    request.by === "cost" && request.prices
      ? [...new Set([request.prices.currency, ...ranked.map((r) => currencyOfEntity(r)!)])].filter((c) =>
          ranked.some((r) => currencyOfEntity(r) === c),
        )
      : [];
  const groups =
    currencies.length > 1
      ? currencies.map((c) => ranked.filter((r) => currencyOfEntity(r) === c).slice(0, limit))
      : [ranked.slice(0, limit)];
  const picked = groups.flatMap((g) => g.map((r, i) => ({ ...r, rank: i + 1, currency: currencyOfEntity(r) })));
  return { currencies, picked };
}

/**
 * The machines, cloud spaces or accounts that consumed most over `[start, end)` by one unit or
 * by cost (the invoice of an account, the allocated share of a cloud space or machine), each
 * with its change against the previous period; the same billing figures as `billing`.
 */
export async function top(connection: DuckDBConnection, request: TopRequest): Promise<TopReport> {
  const level = request.level ?? "machine";
  if (!TOP_LEVELS.includes(level)) throw new UsageError(`bad level "${String(level)}" (use ${TOP_LEVELS.join(", ")})`);
  if (!(METRICS as readonly string[]).includes(request.by))
    throw new UsageError(`bad by: "${String(request.by)}" (use ${METRICS.join(", ")})`);
  if (request.by === "cost" && !request.prices)
    throw new UsageError("ranking by cost needs a price list (the prices option)");
  const limit = request.limit ?? 10;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new UsageError(`bad limit: ${String(limit)} (a whole number, 1 or more)`);
  const options = await withStoredNames(connection, request.options);
  const account = request.accountId !== undefined ? { accountId: request.accountId } : {};
  // a month still running is compared with the same days of the month before, not all of it
  const held =
    request.previous === undefined && isMonth(request.start, request.end)
      ? await heldUntilOf(connection, request.accountId)
      : undefined;
  const heldUntil = held !== undefined && held > request.start && held < request.end ? held : undefined;
  const previous = request.previous ?? previousPeriod(request.start, request.end, heldUntil);
  const comparedWith =
    request.previous !== undefined
      ? "the period given"
      : heldUntil !== undefined
        ? "the same days of the month before"
        : isMonth(request.start, request.end)
          ? "the month before"
          : "the period as long just before";
  const before = await figureOfEach(connection, { ...previous, ...account }, level, request, options);
  const now = await figuresOf(
    connection,
    { start: request.start, end: request.end, ...account },
    level,
    request.prices,
    options,
  );
  // sorted in place: no copy per entity, as a month holds 20,000 machines
  const ranked = now.sort(rankOrder(request.by));
  const { currencies, picked } = perCurrency(ranked, request, limit);
  const rows = picked.map((entity): TopRow => {
    const { figures, rank, currency } = entity;
    const value = figureNumber(figures, request.by) ?? 0;
    const prior = before.get(keyOf(entity)) ?? null;
    return {
      rank,
      level,
      accountId: entity.accountId,
      cloudspaceId: entity.cloudspaceId,
      machineId: entity.machineId,
      ...namesOf(entity, level, options.names),
      value,
      previous: prior,
      change: prior === null || prior === 0 ? null : (value - prior) / prior,
      figures,
      currency,
    };
  });
  const lag = request.nowEpoch === undefined ? undefined : await warehouseLag(connection, request.nowEpoch);
  return {
    start: request.start,
    end: request.end,
    ...(heldUntil === undefined ? {} : { heldUntil }),
    previous,
    comparedWith,
    by: request.by,
    level,
    cuRule: cuRuleSentence(options.cuRollup, options.units),
    ...(request.prices ? { currency: request.prices.currency } : {}),
    ...(currencies.length > 1 ? { currencies } : {}),
    entities: now.length,
    rows,
    ...(lag ? { lag } : {}),
  };
}
