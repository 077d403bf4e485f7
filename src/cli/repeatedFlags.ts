import { UsageError } from "../base/errors.js";

/** What `repeatedFlags` needs of yargs' option table (its `getOptions()`, not in yargs' types). */
export interface DeclaredOptions {
  array: string[];
  boolean: string[];
  count: string[];
  number: string[];
  key: Record<string, unknown>;
}

/**
 * Throws a UsageError when a flag that takes one value (`--account-id` of `billing`, `--port`,
 * ...) is given more than once: yargs' parser counts a repeated flag whose value is 1, so
 * `--account-id 2 --account-id 1` read as account 3, silently another customer's bill.
 * Repeatable flags (declared as arrays) and switches may repeat.
 */
export function refuseRepeatedFlags(argv: readonly string[], options: DeclaredOptions): void {
  const repeatable = new Set([...options.array, ...options.boolean, ...options.count]);
  const seen = new Map<string, number>();
  for (const arg of argv) {
    if (arg === "--") break;
    if (!arg.startsWith("--")) continue;
    const name = arg
      .slice(2)
      .split("=")[0]!
      .replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (!(name in options.key) || repeatable.has(name)) continue;
    seen.set(name, (seen.get(name) ?? 0) + 1);
  }
  const twice = [...seen].filter(([, n]) => n > 1).map(([name]) => `--${name}`);
  if (twice.length > 0)
    throw new UsageError(`${twice.join(", ")} given more than once: give ${twice.length === 1 ? "it" : "each"} once`);
}
