import { readStructured } from "../billing/readStructured.js";
import { UsageError } from "../base/errors.js";
import { FORECAST_UNITS, type ForecastUnit } from "./forecast.js";

/**
 * What a budgets file may hold (docs/safety.md): its size (parsing YAML is slow:
 * docs/performance.md), how many budgets, and the smallest budget (a smaller one is no budget a
 * month could keep, and its percentages leave the range of numbers).
 */
export const BUDGET_LIMITS = { fileBytes: 512 * 1024, budgets: 10_000, smallest: 1e-6 } as const;

/** Thresholds of a budget without its own, in % of the budget. */
export const DEFAULT_THRESHOLDS = [50, 80, 100] as const;

/** A monthly budget of an account or of the environment (every account). */
export interface Budget {
  /** The account; null: the environment. */
  accountId: number | null;
  /**
   * A monthly amount (an account's in the currency it is billed in; the environment's in the price
   * list's, of the accounts billed in it), or a monthly quantity of one unit (unit-hours; NU: TiB).
   */
  limit: { kind: "amount"; amount: number } | { kind: "quantity"; unit: ForecastUnit; quantity: number };
  /** Percentages of the limit that raise an alert once crossed, ascending. */
  thresholds: number[];
}

const KEYS = new Set(["account", "environment", "amount", "unit", "quantity", "thresholds"]);

function thresholdsOf(value: unknown, where: string): number[] {
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.some((t) => typeof t !== "number" || !(t > 0) || !Number.isFinite(t))
  ) {
    throw new UsageError(`${where}: thresholds must be a list of percentages above 0, e.g. [50, 80, 100]`);
  }
  return [...new Set(value as number[])].sort((a, b) => a - b);
}

/**
 * Reads a budgets value (a parsed file): `{ thresholds?: [...], budgets: [{ account: 7 | environment: true,
 * amount: 2500 | unit: CU, quantity: 40000, thresholds?: [...] }] }`. Throws a UsageError naming
 * `source` and the entry for anything else.
 */
export function parseBudgets(value: unknown, source = "budgets"): Budget[] {
  const top = value as Record<string, unknown> | null;
  if (top === null || typeof top !== "object" || Array.isArray(top) || !Array.isArray(top.budgets)) {
    throw new UsageError(
      `${source}: expected { budgets: [ ... ] } (each with account or environment, and amount or unit and quantity)`,
    );
  }
  const unknownTop = Object.keys(top).filter((k) => k !== "budgets" && k !== "thresholds");
  if (unknownTop.length > 0)
    throw new UsageError(`${source}: unknown key ${unknownTop.join(", ")} (keys: budgets, thresholds)`);
  if (top.budgets.length > BUDGET_LIMITS.budgets) {
    throw new UsageError(
      `${source}: ${top.budgets.length} budgets, more than the ${BUDGET_LIMITS.budgets} a budgets file may hold`,
    );
  }
  const defaults =
    top.thresholds === undefined ? [...DEFAULT_THRESHOLDS] : thresholdsOf(top.thresholds, `${source}: thresholds`);
  return (top.budgets as unknown[]).map((entry, i): Budget => {
    const where = `${source}: budgets[${i}]`;
    if (entry === null || typeof entry !== "object" || Array.isArray(entry))
      throw new UsageError(`${where}: expected an object`);
    const b = entry as Record<string, unknown>;
    const unknown = Object.keys(b).filter((k) => !KEYS.has(k));
    if (unknown.length > 0)
      throw new UsageError(`${where}: unknown key ${unknown.join(", ")} (keys: ${[...KEYS].join(", ")})`);
    const hasAccount = b.account !== undefined;
    if (hasAccount === (b.environment === true))
      throw new UsageError(`${where}: give either account: N or environment: true`);
    if (hasAccount && (!Number.isSafeInteger(b.account) || (b.account as number) < 0))
      throw new UsageError(`${where}: account must be an account id (a whole number)`);
    const positive = (v: unknown) => typeof v === "number" && Number.isFinite(v) && v >= BUDGET_LIMITS.smallest;
    let limit: Budget["limit"];
    if (b.amount !== undefined) {
      if (b.unit !== undefined || b.quantity !== undefined)
        throw new UsageError(`${where}: give either amount, or unit and quantity, not both`);
      if (!positive(b.amount))
        throw new UsageError(
          `${where}: amount must be a number of at least ${BUDGET_LIMITS.smallest} (per month, in the currency the account is billed in)`,
        );
      limit = { kind: "amount", amount: b.amount as number };
    } else {
      if (!FORECAST_UNITS.includes(b.unit as ForecastUnit))
        throw new UsageError(`${where}: unit must be one of ${FORECAST_UNITS.join(", ")} (or give amount)`);
      if (!positive(b.quantity))
        throw new UsageError(
          `${where}: quantity must be a number of at least ${BUDGET_LIMITS.smallest} (unit-hours per month; NU: TiB)`,
        );
      limit = { kind: "quantity", unit: b.unit as ForecastUnit, quantity: b.quantity as number };
    }
    return {
      accountId: hasAccount ? (b.account as number) : null,
      limit,
      thresholds: b.thresholds === undefined ? defaults : thresholdsOf(b.thresholds, where),
    };
  });
}

/** Reads a budgets file (YAML, or JSON when it ends in .json) within `BUDGET_LIMITS`; a UsageError names the file. */
export async function loadBudgets(file: string): Promise<Budget[]> {
  return parseBudgets(
    await readStructured(file, { maxBytes: BUDGET_LIMITS.fileBytes, what: "a budgets file", role: "budgets file" }),
    file,
  );
}
