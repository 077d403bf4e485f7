import type { SeenData } from "../../src/billing/engineSums.js";

/**
 * What an engine saw, its accounts' hours as lists however it holds them (the grouped roads hold
 * runs of consecutive hours, `heldRuns`; the roads of every account-hour, the hours): two roads
 * that saw the same hours compare equal.
 */
export function seenAsHours(seen: SeenData): SeenData {
  const accountHours = new Map(seen.accountHours);
  for (const [accountId, runs] of seen.heldRuns ?? []) {
    const hours = [...(accountHours.get(accountId) ?? [])];
    for (let k = 0; k < runs.length; k += 2) for (let h = runs[k]!; h < runs[k + 1]!; h += 3600) hours.push(h);
    accountHours.set(
      accountId,
      hours.sort((a, b) => a - b),
    );
  }
  return { ...seen, accountHours: new Map([...accountHours].sort(([a], [b]) => a - b)), heldRuns: undefined };
}
