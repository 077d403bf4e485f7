import { FetchError } from "../base/errors.js";
import { printableExcerpt } from "../fetch/statusError.js";

/** The four units reconciled (section 2.5 of the seed); machines have no NU. */
export const RECONCILED_UNITS = ["CU", "SU", "TU", "NU"] as const;
export type ReconciledUnit = (typeof RECONCILED_UNITS)[number];

/** A consumption object read leniently: a unit the answer lacks is undefined. */
export type Figures = Partial<Record<ReconciledUnit, number>>;

/** One `billing/calculate` account answer, as maps by id. */
export interface AccountTree {
  id: number;
  name: string;
  consumption: Figures;
  cloudspaces: Map<
    number,
    { name: string; consumption: Figures; machines: Map<number, { name: string; consumption: Figures }> }
  >;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function bad(where: string, why: string): FetchError {
  return new FetchError(
    "FETCH_BAD_ANSWER",
    `${where} answered in a shape cloudunits does not know (billing/calculate: docs/cli.md): ${why}`,
  );
}

function figuresOf(value: unknown, where: string, path: string): Figures {
  if (!isObject(value)) throw bad(where, `${path}.consumption is not an object`);
  const out: Figures = {};
  for (const unit of RECONCILED_UNITS) {
    const v = value[unit];
    if (v === undefined || v === null) continue;
    const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v; // "decimal" figures may come as strings
    if (typeof n !== "number" || !Number.isFinite(n))
      throw bad(
        where,
        `${path}.consumption.${unit} is not a number (${printableExcerpt(JSON.stringify(v) ?? String(v), 60)})`,
      );
    out[unit] = n;
  }
  return out;
}

/** The environment's consumption of an answer without `accountId`: `{ consumption }`. */
export function environmentFigures(answer: unknown, where: string): Figures {
  if (!isObject(answer)) throw bad(where, "not a JSON object");
  return figuresOf(answer.consumption, where, "the answer");
}

/** The account of an answer with `accountId`: `{ account: { id, name, consumption, cloudspaces: { <id>: { ..., machines } } } }`. */
export function accountTree(answer: unknown, accountId: number, where: string): AccountTree {
  if (!isObject(answer) || !isObject(answer.account)) throw bad(where, 'no "account" object');
  const account = answer.account;
  const tree: AccountTree = {
    id: accountId,
    name: typeof account.name === "string" ? account.name : "",
    consumption: figuresOf(account.consumption, where, "account"),
    cloudspaces: new Map(),
  };
  const spaces = account.cloudspaces ?? {};
  if (!isObject(spaces)) throw bad(where, "account.cloudspaces is not an object keyed by id");
  for (const [key, space] of Object.entries(spaces)) {
    const path = `account.cloudspaces.${key}`;
    if (!isObject(space)) throw bad(where, `${path} is not an object`);
    const id = Number(space.id ?? key);
    if (!Number.isSafeInteger(id)) throw bad(where, `${path} has no whole-number id`);
    const machines = new Map<number, { name: string; consumption: Figures }>();
    const listed = space.machines ?? {};
    if (!isObject(listed)) throw bad(where, `${path}.machines is not an object keyed by id`);
    for (const [mkey, machine] of Object.entries(listed)) {
      const mpath = `${path}.machines.${mkey}`;
      if (!isObject(machine)) throw bad(where, `${mpath} is not an object`);
      const mid = Number(machine.id ?? mkey);
      if (!Number.isSafeInteger(mid)) throw bad(where, `${mpath} has no whole-number id`);
      machines.set(mid, {
        name: typeof machine.name === "string" ? machine.name : "",
        consumption: figuresOf(machine.consumption, where, mpath),
      });
    }
    tree.cloudspaces.set(id, {
      name: typeof space.name === "string" ? space.name : "",
      consumption: figuresOf(space.consumption, where, path),
      machines,
    });
  }
  return tree;
}
