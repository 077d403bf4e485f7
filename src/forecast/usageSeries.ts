import type { DuckDBConnection } from "@duckdb/node-api";
import { hourlyLines, resolveOptions, type BillingLine, type BillingOptions, type BillingParams, type Level } from "../billing/lines.js";
import { priceAt, type PriceList } from "../billing/prices.js";
import { UNIT_NAMES, type UnitName } from "../billing/unitNames.js";
import type { Units } from "../billing/units.js";

/** What forecasts, anomalies and rankings measure: the four billing units, and money. */
export const METRICS = ["CU", "SU", "TU", "NU", "cost"] as const;
/** A measured figure: CU, SU, TU (unit-hours), NU (TB transferred) or cost (in the price list's currency). */
export type Metric = (typeof METRICS)[number];
/** One entity's figures in one hour; `cost` is NaN without a price list. */
export type Figures = Record<Metric, number>;

/** One entity of the billing hierarchy and its figures hour by hour. */
export interface EntitySeries {
  /** `account:7`, `cloudspace:7:120`, `machine:7:120:4392`, `environment`. */
  key: string;
  level: Level;
  accountId: number | null;
  cloudspaceId: number | null;
  machineId: number | null;
  /** From the names given (or stored by sync), `""` when unknown. */
  name: string;
  /** Its figures in each hour it has a line (epoch seconds of the hour). */
  hours: Map<number, Figures>;
}

/** The key of a line's entity. */
export function entityKey(l: { level: Level | "gateway"; accountId: number | null; cloudspaceId: number | null; machineId: number | null }): string {
  return l.level === "environment" ? "environment" : [l.level, l.accountId, l.cloudspaceId, l.machineId].filter((v) => v !== null).join(":");
}

/**
 * An hour's money of a line: each unit's unit-hours (CU: the line's allocated CU, so machines'
 * costs add up to their account's; NU of a machine: its own external NICs) at the account's
 * price in force that hour, unrounded. NaN without a price list.
 */
function costOf(line: BillingLine, hourEpoch: number, prices: PriceList | undefined, units: Units): number {
  if (!prices) return Number.NaN;
  let cost = 0;
  for (const unit of UNIT_NAMES) {
    const price = priceAt(prices, line.accountId, unit, hourEpoch);
    if (!price) continue;
    const unitHours = quantityOf(line, unit);
    cost += (price.per === "month" ? unitHours / units.hoursPerMonth : unitHours) * Number(price.text);
  }
  return cost;
}

/** A line's unit-hours of a unit (NU: TB): CU allocated, NU of a machine's own external NICs. */
function quantityOf(line: BillingLine, unit: UnitName): number {
  if (unit === "CU") return line.cuAllocatedHours;
  if (unit === "NU" && line.level === "machine") return line.ownNicNu;
  return line.unitHours[unit] ?? 0;
}

/**
 * The hour-by-hour figures of every entity of the given levels over `[start, end)`, from the
 * billing engine over the warehouse (the same figures as `billing --detail hourly`): CU
 * (own), SU, TU, NU and cost. The environment's cost is the sum of its accounts'.
 */
export async function usageSeries(
  connection: DuckDBConnection, params: BillingParams, levels: readonly Level[], options: BillingOptions = {}, prices?: PriceList,
): Promise<Map<string, EntitySeries>> {
  const { units } = resolveOptions(options);
  const read: Level[] = levels.includes("environment") && !levels.includes("account") ? [...levels, "account"] : [...levels];
  const series = new Map<string, EntitySeries>();
  for await (const batch of hourlyLines(connection, params, options, read)) {
    let environmentCost = 0;
    let environment: Figures | undefined;
    for (const line of batch) {
      if (line.level === "gateway" || line.hourEpoch === null) continue;
      const hour = line.hourEpoch;
      const figures: Figures = {
        CU: line.unitHours.CU ?? 0, SU: line.unitHours.SU ?? 0, TU: line.unitHours.TU ?? 0,
        NU: quantityOf(line, "NU"), cost: costOf(line, hour, prices, units),
      };
      if (line.level === "account") environmentCost += figures.cost;
      if (line.level === "environment") environment = figures;
      if (!levels.includes(line.level)) continue;
      const key = entityKey(line);
      let entity = series.get(key);
      if (!entity) {
        entity = { key, level: line.level, accountId: line.accountId, cloudspaceId: line.cloudspaceId, machineId: line.machineId, name: line.name, hours: new Map() };
        series.set(key, entity);
      }
      entity.hours.set(hour, figures);
    }
    if (environment) environment.cost = environmentCost;
  }
  return series;
}
