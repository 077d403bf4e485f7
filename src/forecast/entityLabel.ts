/** An entity as a sentence names it: its level and id, with the names of it and of what it is in. */
export interface NamedEntity {
  level: "account" | "cloudspace" | "machine";
  accountId: number;
  cloudspaceId: number | null;
  machineId: number | null;
  /** The entity's own name (`""` when unknown). */
  name: string;
  accountName: string;
  /** The cloud space's name: of a cloud space, its own; of a machine, its cloud space's (null or `""` when unknown). */
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
