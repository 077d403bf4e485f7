import type { Period } from "../base/period.js";

/** The levels of the billing hierarchy, from the top. */
export const LEVELS = ["environment", "account", "cloudspace", "machine"] as const;
/** A level of the billing hierarchy. */
export type Level = (typeof LEVELS)[number];
/**
 * The level of a report line: a level of the hierarchy, or `gateway`: a cloud space's
 * gateway in showback (its NU and public IP, beside the machines; see `showback`).
 */
export type LineLevel = Level | "gateway";

/** The levels a report of `params` shows: with an account id, the account and below; without, every level. */
export function levelsFor(params: Period): readonly Level[] {
  return params.accountId === undefined ? LEVELS : LEVELS.filter((l) => l !== "environment");
}

/** The levels the `billing/calculate` shape of `params` shows: the environment alone, or the account and below. */
export function calculateLevels(params: Period): readonly Level[] {
  return params.accountId === undefined ? ["environment"] : levelsFor(params);
}

/** True when `levels` are the environment alone: an engine then keeps no other sums (see `BillingEngine`). */
export const environmentOnly = (levels: readonly Level[]): boolean =>
  levels.length === 1 && levels[0] === "environment";
