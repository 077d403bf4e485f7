import { UsageError } from "../base/errors.js";
import type { InputLimits } from "./types.js";

/** The default safety limits on inputs (docs/input.md). */
export const DEFAULT_INPUT_LIMITS: Required<InputLimits> = {
  maxEntryBytes: 256 * 1024 * 1024,
  maxCompressionRatio: 1000,
  maxEntries: 1_000_000,
  maxTotalBytes: 64 * 1024 ** 3,
  maxAccountHourBytes: 512 * 1024 * 1024,
};

/** The limits of `options` with defaults filled in; a limit that is not a positive number is a UsageError. */
export function resolveLimits(options: InputLimits = {}): Required<InputLimits> {
  const limits = { ...DEFAULT_INPUT_LIMITS };
  for (const key of Object.keys(DEFAULT_INPUT_LIMITS) as (keyof InputLimits)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || !(value > 0)) {
      throw new UsageError(`bad ${key}: ${String(value)} (use a positive number)`);
    }
    limits[key] = value;
  }
  return limits;
}
