import { UsageError } from "../base/errors.js";
import type { DeclaredOptions } from "./repeatedFlags.js";

/**
 * Throws a UsageError naming the text given when a flag declared as a number (`--max-lag`,
 * `--port`, `--account-id`, ...) is given something that is not one: yargs reads it as NaN, and a
 * check of the value could only say "bad --max-lag NaN", not what was typed.
 */
export function refuseNonNumbers(argv: readonly string[], options: DeclaredOptions): void {
  const numbers = new Set(options.number);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--") break;
    if (!arg.startsWith("--")) continue;
    const [flag, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const name = flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    if (!numbers.has(name)) continue;
    const text = inline ?? argv[i + 1];
    if (text === undefined || text.startsWith("--")) continue; // yargs says the value is missing
    if (text.trim() === "" || !Number.isFinite(Number(text)))
      throw new UsageError(`bad --${name} ${JSON.stringify(text)}: give a number`);
  }
}
