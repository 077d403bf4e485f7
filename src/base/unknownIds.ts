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
  const nearest = sorted.length <= SHOWN
    ? sorted
    : [...sorted].sort((a, b) => Math.abs(a - unknown[0]!) - Math.abs(b - unknown[0]!) || a - b).slice(0, SHOWN).sort((a, b) => a - b);
  const list = sorted.length === 0 ? "none"
    : sorted.length <= SHOWN ? nearest.join(", ")
      : `${nearest.join(", ")} (the nearest of ${sorted.length})`;
  throw new UsageError(`unknown ${kind} ${unknown.join(", ")} (not in ${where}); known: ${list}`, { code: "UNKNOWN_ID" });
}
