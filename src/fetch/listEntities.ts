import { FetchError } from "../base/errors.js";
import { callService } from "./callService.js";
import { printableExcerpt } from "./statusError.js";
import type { ServiceSession } from "./serviceSession.js";

/** An account of `accounts/list`. */
export interface ListedAccount {
  id: number;
  name: string;
}

/** A cloud space of `cloudspaces/list`. */
export interface ListedCloudspace {
  id: number;
  name: string;
  accountId: number;
}

export const ACCOUNTS_LIST_PATH = "/restmachine/cloudapi/accounts/list";
export const CLOUDSPACES_LIST_PATH = "/restmachine/cloudapi/cloudspaces/list";

/** A value of a list item as a message may quote it: short and printable. */
const quoted = (value: unknown) =>
  value === undefined ? "nothing" : printableExcerpt(JSON.stringify(value) ?? String(value), 60);

/** A whole number id, also written as a decimal string; undefined otherwise. */
function idOf(value: unknown): number | undefined {
  const id = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? id : undefined;
}

/**
 * The items of a list answer: a JSON array of objects with a whole-number `id` (or its
 * decimal string) and a string `name`, plus the whole-number fields `extra`. Anything else is
 * a FetchError FETCH_BAD_LIST naming the endpoint and the first offending item.
 */
export function parseList<K extends string>(
  answer: unknown,
  endpoint: string,
  extra: readonly K[] = [],
): ({ id: number; name: string } & Record<K, number>)[] {
  const expected = `a JSON array of objects with "id" and "name"${extra.map((k) => ` and "${k}"`).join("")}`;
  const bad = (why: string) =>
    new FetchError(
      "FETCH_BAD_LIST",
      `POST ${endpoint} answered in a shape cloudunits does not know: ${why}; expected ${expected}`,
    );
  if (!Array.isArray(answer))
    throw bad(`got ${answer === null ? "null" : typeof answer === "object" ? "an object" : typeof answer}`);
  return answer.map((item: unknown, i) => {
    if (item === null || typeof item !== "object" || Array.isArray(item)) throw bad(`item ${i + 1} is not an object`);
    const record = item as Record<string, unknown>;
    const id = idOf(record.id);
    if (id === undefined) throw bad(`item ${i + 1} has no whole-number "id" (got ${quoted(record.id)})`);
    if (typeof record.name !== "string")
      throw bad(`item ${i + 1} (id ${id}) has no string "name" (got ${quoted(record.name)})`);
    const out: Record<string, unknown> = { id, name: record.name };
    for (const key of extra) {
      const value = idOf(record[key]);
      if (value === undefined)
        throw bad(`item ${i + 1} (id ${id}) has no whole-number "${key}" (got ${quoted(record[key])})`);
      out[key] = value;
    }
    return out as { id: number; name: string } & Record<K, number>;
  });
}

/** Account ids are positive integers below 2^32, as in consumption paths. */
const MAX_ACCOUNT_ID = 2 ** 32 - 1;

/**
 * `items` unchanged when each one's `field` is an account id (1 to 2^32 − 1); otherwise a
 * FetchError FETCH_BAD_LIST naming the endpoint, the item and the id.
 */
function checkAccountIds<T extends Record<string, unknown>>(
  items: T[],
  field: keyof T & string,
  endpoint: string,
): T[] {
  items.forEach((item, i) => {
    const id = item[field] as number;
    if (id < 1 || id > MAX_ACCOUNT_ID) {
      throw new FetchError(
        "FETCH_BAD_LIST",
        `POST ${endpoint} lists account id ${id} (item ${i + 1}, "${field}"), which no account can have: account ids are 1 to ${MAX_ACCOUNT_ID}; ask the platform's operators`,
      );
    }
  });
  return items;
}

/** `POST accounts/list` (seed 4): every account the user may see. Throws FetchError (FETCH_BAD_LIST for an impossible id). */
export async function listAccounts(session: ServiceSession): Promise<ListedAccount[]> {
  return checkAccountIds(
    parseList(await callService(session, "POST", ACCOUNTS_LIST_PATH), ACCOUNTS_LIST_PATH),
    "id",
    ACCOUNTS_LIST_PATH,
  );
}

/** `POST cloudspaces/list` (seed 4): every cloud space the user may see, with its account. Throws FetchError (FETCH_BAD_LIST for an impossible account id). */
export async function listCloudspaces(session: ServiceSession): Promise<ListedCloudspace[]> {
  const items = parseList(await callService(session, "POST", CLOUDSPACES_LIST_PATH), CLOUDSPACES_LIST_PATH, [
    "accountId",
  ] as const);
  return checkAccountIds(items, "accountId", CLOUDSPACES_LIST_PATH);
}
