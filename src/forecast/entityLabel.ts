import { nameOf, type Names } from "../billing/names.js";
import type { EntityUsage } from "./usageTable.js";

/** An account, cloud space or machine with its ids, its name and the names of the account and cloud space it is in (what alerts and rankings name). */
export interface NamedEntity {
  level: "account" | "cloudspace" | "machine";
  accountId: number;
  /** Null for an account. */
  cloudspaceId: number | null;
  /** Null above a machine. */
  machineId: number | null;
  /** The entity's own name; `accountName` and `cloudspaceName` those of the account and cloud space it is in (`""` when unknown; null above its level). */
  name: string;
  accountName: string;
  cloudspaceName: string | null;
}

const named = (what: string, id: number | null, name: string | null) => `${what} ${id}${name ? ` (${name})` : ""}`;

/**
 * `account 7 (Acme)`, `cloud space 120 (prod) of account 7 (Acme)`, `machine 4392 (web-1) in
 * cloud space 120 (prod) of account 7 (Acme)`: each level once, each with its name when known.
 */
export function entityLabel(e: NamedEntity): string {
  const account = named("account", e.accountId, e.accountName);
  if (e.level === "account") return account;
  const cloudspace = named("cloud space", e.cloudspaceId, e.level === "cloudspace" ? e.name : e.cloudspaceName);
  if (e.level === "cloudspace") return `${cloudspace} of ${account}`;
  return `${named("machine", e.machineId, e.name)} in ${cloudspace} of ${account}`;
}

/** An entity's name and those of the account and cloud space it is in. */
export function namesOf(
  entity: EntityUsage,
  names: Names | undefined,
): { name: string; accountName: string; cloudspaceName: string | null } {
  return {
    name: entity.name,
    accountName: nameOf(names, "account", entity.accountId!),
    cloudspaceName: entity.cloudspaceId === null ? null : nameOf(names, "cloudspace", entity.cloudspaceId),
  };
}
