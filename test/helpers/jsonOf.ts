import type { Exact } from "../../src/billing/exact.js";

/** What `JSON.stringify` makes of a type: every `Exact` amount its decimal string (`"12.30"`), the rest as it is. */
export type JsonOf<T> = T extends Exact
  ? string
  : T extends readonly (infer U)[]
    ? JsonOf<U>[]
    : T extends object
      ? { [K in keyof T]: JsonOf<T[K]> }
      : T;

/** A value as a JSON output prints it and a reader parses it back: amounts as decimal strings. */
export function jsonOf<T>(value: T): JsonOf<T> {
  return JSON.parse(JSON.stringify(value)) as JsonOf<T>;
}
