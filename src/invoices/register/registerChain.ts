import type { DuckDBConnection } from "@duckdb/node-api";
import { createHash } from "node:crypto";
import { RegisterBrokenError } from "../../base/errors.js";
import { chainedDocuments } from "./chainedDocuments.js";
import { chainedDeliveries, chainedPayments } from "./chainedReceivables.js";
import { hasTable } from "../../base/hasTable.js";
import { chainedCredits } from "./chainedCredits.js";

/**
 * The register's chain (docs/billing.md#the-chain): every record of the register gets a link, in
 * the transaction that records it. A link keeps the SHA-256 of each field of its record as
 * recorded (`fields`) and its chain value: SHA-256 of the previous link's value in the same chain
 * (a document's numbering sequence) and of its fields' hashes. The links, in the order they were
 * made, fold into the register's **head**, `N:SHA256` (N links), which `invoices verify` and
 * `invoices list` print for a finance team to keep outside the warehouse.
 *
 * What can be found from the warehouse alone: a field of a record or a file's bytes changed (its
 * hash is no longer the one linked), a record removed (its link is left), or its link too (the
 * next link no longer follows; a place of a numbered sequence is empty; the last links: the head
 * mark counts more), a record added without a link. Someone who rewrites the chain after a
 * change makes it whole again: only a head kept outside (`verifyRegister(c, { kept })`) finds that.
 *
 * A kind of record (documents, payments, delivery attempts) is an entry of {@link CHAINED_KINDS}
 * (how its records are read as fields) and a call of {@link appendLinks} in the transaction that
 * inserts it. Which kinds a register chains is marked (`warehouse_meta.register_chained_kinds`):
 * a kind added by a later version is chained, its records held then at once, on the first open
 * to write ({@link chainRegisterOnce}); until then its records are `unchained`, not problems.
 */

/** A record as the chain sees it: its key, its chain (and place there, when the chain is numbered), its fields by name. */
export interface ChainedRecord {
  /** Which record of its kind (a document's number). */
  key: string;
  /** Its chain: records of one chain follow each other (a document's numbering sequence, in words). */
  chain: string;
  /** Its place in its chain's numbering (a document's seq: 1, 2, 3... without a gap); undefined when the chain is not numbered. */
  place?: number;
  /** Every field as recorded now, by a name a reader understands (`gross`, `bytes of INV-2026-00001.pdf`): JSON values, bigints allowed. */
  fields: Record<string, unknown>;
}

/** A kind of record the register chains. */
export interface ChainedKind {
  /** The word for one in messages: "document". */
  noun: string;
  /** The records of this kind held now, every one or those of `keys`, in the order they were recorded. */
  read(connection: DuckDBConnection, keys?: readonly string[]): Promise<ChainedRecord[]>;
}

/** Every kind of record the register chains, by the name its links carry (`register_chain.kind`). */
export const CHAINED_KINDS = {
  document: chainedDocuments,
  payment: chainedPayments,
  delivery: chainedDeliveries,
  credit: chainedCredits,
} satisfies Record<string, ChainedKind>;

/** The name of a kind of chained record. */
export type ChainedKindName = keyof typeof CHAINED_KINDS;

/** What `verifyRegister` found. */
export interface RegisterVerification {
  /** False for a register made before the chain and not opened to write since (nothing to verify against yet). */
  chained: boolean;
  /** Documents held. */
  records: number;
  /** Records held of each kind the register chains (`document`, `payment`, `delivery`). */
  held: Record<ChainedKindName, number>;
  /** Records of a kind this register does not chain yet (a register chained by an earlier version, not opened to write since): chained on the next open to write, not verified until then. */
  unchained: Partial<Record<ChainedKindName, number>>;
  /** Links held. */
  links: number;
  /** Documents' numbering sequences held (payments and delivery attempts are a chain each, not counted here). */
  chains: number;
  /** The head of the links held, `N:SHA256`; undefined with no link. */
  head: string | undefined;
  /** What disagrees with the chain, one line each, naming the record or link; empty when the register is as recorded. */
  problems: string[];
}

/** The `warehouse_meta` key of the head after the last link recorded (`N:SHA256`). */
const HEAD_KEY = "register_head";
/** The `warehouse_meta` key of the kinds the register chains, comma-separated (absent: a register chained by a version that chained documents alone). */
const KINDS_KEY = "register_chained_kinds";
const KIND_NAMES = Object.keys(CHAINED_KINDS) as ChainedKindName[];

/** JSON with the keys of every object sorted and bigints as decimal strings: the same value gives the same text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return v.toString();
    if (v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Uint8Array)) {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    return v;
  });
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The SHA-256 of each field's canonical JSON, by name. */
export function fieldHashes(fields: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [name, sha256(canonicalJson(value ?? null))]),
  );
}

/** A link's chain value: SHA-256 of the previous link's value (empty for a chain's first) and of its fields' hashes. */
export function chainValue(previous: string, hashes: Record<string, string>): string {
  return sha256(`${previous}${sha256(canonicalJson(hashes))}`);
}

/** The head after one more link: SHA-256 of the head before (empty for the first) and of the link's chain value. */
const nextHead = (head: string, value: string) => sha256(`${head}${value}`);

interface Link {
  link: number;
  kind: string;
  key: string;
  chain: string;
  place: number | undefined;
  fields: Record<string, string>;
  chainSha256: string;
}

async function readLinks(
  connection: DuckDBConnection,
  where = "",
  params: Record<string, string> = {},
): Promise<Link[]> {
  const rows = (
    await connection.runAndReadAll(
      `SELECT link, kind, key, chain, place, fields::VARCHAR AS fields, chain_sha256 FROM register_chain ${where} ORDER BY link`,
      params,
    )
  ).getRowObjectsJS();
  return rows.map((r) => ({
    link: Number(r.link),
    kind: String(r.kind),
    key: String(r.key),
    chain: String(r.chain),
    place: r.place === null ? undefined : Number(r.place),
    fields: JSON.parse(String(r.fields)) as Record<string, string>,
    chainSha256: String(r.chain_sha256),
  }));
}

async function readHeadMark(connection: DuckDBConnection): Promise<{ links: number; sha256: string } | undefined> {
  if (!(await hasTable(connection, "warehouse_meta"))) return undefined;
  const row = (
    await connection.runAndReadAll("SELECT value FROM warehouse_meta WHERE key = $key", { key: HEAD_KEY })
  ).getRowsJS()[0];
  return row === undefined ? undefined : parseHead(String(row[0]));
}

/** `N:SHA256` (as printed, also after "register head "), or undefined when it is not one. */
export function parseHead(text: string): { links: number; sha256: string } | undefined {
  const m = /^(?:register head )?(\d+):([0-9a-f]{64})$/.exec(text.trim());
  return m ? { links: Number(m[1]), sha256: m[2]! } : undefined;
}

/**
 * Chains records just inserted, in the caller's transaction (the one that inserted them): each of
 * `keys` of `kind`, in that order, gets the next link, its fields read back from the warehouse as
 * `verifyRegister` reads them, and the head mark moves on.
 */
export async function appendLinks(
  connection: DuckDBConnection,
  kind: ChainedKindName,
  keys: readonly string[],
): Promise<void> {
  if (keys.length === 0) return;
  const records = new Map((await CHAINED_KINDS[kind].read(connection, keys)).map((r) => [r.key, r]));
  const mark = await readHeadMark(connection);
  const last = (await connection.runAndReadAll("SELECT coalesce(max(link), 0) FROM register_chain")).getRowsJS()[0]![0];
  let link = Number(last);
  let head = mark?.sha256 ?? "";
  const previous = new Map<string, string>();
  for (const key of keys) {
    const record = records.get(key);
    if (record === undefined) throw new Error(`${kind} ${key}: not in the register, so not chained`);
    if (!previous.has(record.chain)) {
      const row = (
        await connection.runAndReadAll(
          "SELECT chain_sha256 FROM register_chain WHERE chain = $chain ORDER BY link DESC LIMIT 1",
          { chain: record.chain },
        )
      ).getRowsJS()[0];
      previous.set(record.chain, row === undefined ? "" : String(row[0]));
    }
    const hashes = fieldHashes(record.fields);
    const value = chainValue(previous.get(record.chain)!, hashes);
    await connection.run(
      "INSERT INTO register_chain (link, kind, key, chain, place, fields, chain_sha256) VALUES ($link, $kind, $key, $chain, $place, $fields, $value)",
      {
        link: ++link,
        kind,
        key,
        chain: record.chain,
        place: record.place ?? null,
        fields: canonicalJson(hashes),
        value,
      },
    );
    previous.set(record.chain, value);
    head = nextHead(head, value);
  }
  await connection.run("INSERT OR REPLACE INTO warehouse_meta (key, value) VALUES ($key, $value)", {
    key: HEAD_KEY,
    value: `${link}:${head}`,
  });
}

/**
 * The kinds the register chains: those its mark names, any kind with a link (a mark removed does
 * not make linked records unchecked), and documents when it has a link or a head (a register
 * chained by a version that chained documents alone). None for a register made before the chain.
 */
async function chainedKinds(connection: DuckDBConnection): Promise<{ kinds: Set<ChainedKindName>; marked: boolean }> {
  const kinds = new Set<ChainedKindName>();
  if (!(await hasTable(connection, "register_chain"))) return { kinds, marked: false };
  let marked = false;
  if (await hasTable(connection, "warehouse_meta")) {
    const row = (
      await connection.runAndReadAll("SELECT value FROM warehouse_meta WHERE key = $key", { key: KINDS_KEY })
    ).getRowsJS()[0];
    if (row !== undefined) {
      marked = true;
      for (const name of String(row[0]).split(","))
        if ((KIND_NAMES as string[]).includes(name)) kinds.add(name as ChainedKindName);
    }
  }
  for (const [kind] of (await connection.runAndReadAll("SELECT DISTINCT kind FROM register_chain")).getRowsJS()) {
    if ((KIND_NAMES as string[]).includes(String(kind))) kinds.add(String(kind) as ChainedKindName);
  }
  if (kinds.size > 0 || (await readHeadMark(connection)) !== undefined) kinds.add("document");
  return { kinds, marked };
}

/**
 * Chains, once, when a writer opens the warehouse (`openDatabaseFile`, on a file of an older
 * schema): a register made before the chain, every record in the order recorded (documents, then
 * payments, then delivery attempts); a register chained before a kind was (documents alone,
 * before payments and deliveries were), that kind's records, after the links held. In one
 * transaction, and the kinds chained are marked. Only a kind without a link: a record found later
 * without its link is a problem `verifyRegister` names, never chained quietly. Returns how many
 * records were chained.
 */
export async function chainRegisterOnce(connection: DuckDBConnection): Promise<number> {
  if (!(await hasTable(connection, "register_chain"))) return 0;
  const { kinds, marked } = await chainedKinds(connection);
  const missing = KIND_NAMES.filter((k) => !kinds.has(k));
  if (missing.length === 0 && marked) return 0;
  let chained = 0;
  await connection.run("BEGIN TRANSACTION");
  try {
    for (const kind of missing) {
      const keys = (await CHAINED_KINDS[kind].read(connection)).map((r) => r.key);
      await appendLinks(connection, kind, keys);
      chained += keys.length;
    }
    await connection.run("INSERT OR REPLACE INTO warehouse_meta (key, value) VALUES ($key, $value)", {
      key: KINDS_KEY,
      value: KIND_NAMES.join(","),
    });
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
  return chained;
}

/**
 * Verifies the register against its chain: every link follows the one before it, the head mark
 * is the links', every record is linked with the fields it was linked with (files' bytes
 * included), no linked record is gone, no place of a numbered chain is empty. `kept`: a head
 * printed before (`N:SHA256`), which the register's first N links must still fold into. Reads
 * only; a register made before the chain (never opened to write since) is `chained: false`.
 */
export async function verifyRegister(
  connection: DuckDBConnection,
  options: { kept?: string } = {},
): Promise<RegisterVerification> {
  const all = await readRecords(connection);
  const held = Object.fromEntries(KIND_NAMES.map((k) => [k, all.get(k)?.length ?? 0])) as Record<
    ChainedKindName,
    number
  >;
  const mark = await readHeadMark(connection);
  if (!(await hasTable(connection, "register_chain"))) {
    const problems = mark === undefined ? [] : ["the register's chain (table register_chain) was removed"];
    return {
      chained: false,
      records: held.document,
      held,
      unchained: Object.fromEntries(KIND_NAMES.filter((k) => held[k] > 0).map((k) => [k, held[k]])),
      links: 0,
      chains: 0,
      head: undefined,
      problems: [...problems, ...keptProblems(options.kept, new Map(), 0)],
    };
  }
  const { kinds, marked } = await chainedKinds(connection);
  const records = new Map([...all].filter(([kind]) => kinds.has(kind as ChainedKindName)));
  const unchained = Object.fromEntries(KIND_NAMES.filter((k) => !kinds.has(k) && held[k] > 0).map((k) => [k, held[k]]));
  const links = await readLinks(connection);
  const heads = new Map<number, string>();
  let head = "";
  for (const l of links) heads.set(l.link, (head = nextHead(head, l.chainSha256)));
  const last = links.at(-1)?.link ?? 0;
  const problems = [
    ...linkNumberProblems(links),
    ...markProblems(mark, heads, last),
    ...(!marked && links.some((l) => l.kind !== "document")
      ? [`the register's mark of the kinds it chains (warehouse_meta ${KINDS_KEY}) was removed`]
      : []),
    ...chainProblems(links),
    ...recordProblems(records, links),
    ...placeProblems(records),
    ...keptProblems(options.kept, heads, last),
  ];
  return {
    chained: kinds.has("document"),
    records: held.document,
    held,
    unchained,
    links: links.length,
    chains: new Set(links.filter((l) => l.kind === "document").map((l) => l.chain)).size,
    head: last === 0 ? undefined : `${last}:${head}`,
    problems,
  };
}

/** Throws RegisterBrokenError when the register disagrees with its chain; else what `verifyRegister` found. */
export async function intactRegister(connection: DuckDBConnection): Promise<RegisterVerification> {
  const verification = await verifyRegister(connection);
  if (verification.problems.length > 0) throw new RegisterBrokenError(verification.problems);
  return verification;
}

async function readRecords(connection: DuckDBConnection): Promise<Map<string, ChainedRecord[]>> {
  const records = new Map<string, ChainedRecord[]>();
  for (const [name, kind] of Object.entries(CHAINED_KINDS)) records.set(name, await kind.read(connection));
  return records;
}

const nounOf = (kind: string) => (CHAINED_KINDS as Record<string, ChainedKind>)[kind]?.noun ?? kind;

/** Links are numbered 1, 2, 3... without a gap. */
function linkNumberProblems(links: readonly Link[]): string[] {
  const problems: string[] = [];
  let expected = 1;
  for (const l of links) {
    if (l.link > expected)
      problems.push(
        `link${l.link - expected === 1 ? ` ${expected} is` : `s ${expected}–${l.link - 1} are`} missing (removed), before ${nounOf(l.kind)} ${l.key}'s`,
      );
    expected = l.link + 1;
  }
  return problems;
}

/** The head mark written with the last link names as many links as are held, and their head. */
function markProblems(
  mark: { links: number; sha256: string } | undefined,
  heads: ReadonlyMap<number, string>,
  last: number,
): string[] {
  if (mark === undefined)
    return last === 0 ? [] : [`the register's head mark (warehouse_meta ${HEAD_KEY}) was removed`];
  if (mark.links > last)
    return [
      `the last link${mark.links - last === 1 ? ` (${mark.links}) was` : `s (${last + 1}–${mark.links}) were`} removed: ${mark.links} were recorded, ${last} are held`,
    ];
  if (mark.links < last)
    return [`links ${mark.links + 1}–${last} were added outside cloudunits: the last recorded is ${mark.links}`];
  if (heads.get(mark.links) !== mark.sha256)
    return [`the links are not those recorded: their head is not the head mark ${mark.links}:${mark.sha256}`];
  return [];
}

/** Each link's chain value follows from the one before it in its chain and its own fields. */
function chainProblems(links: readonly Link[]): string[] {
  const problems: string[] = [];
  const previous = new Map<string, { value: string; link: Link }>();
  for (const l of links) {
    const before = previous.get(l.chain);
    if (chainValue(before?.value ?? "", l.fields) !== l.chainSha256) {
      problems.push(
        `broken link: ${nounOf(l.kind)} ${l.key}'s (link ${l.link}) does not follow ${before === undefined ? "the start of its chain" : `${nounOf(before.link.kind)} ${before.link.key}'s (link ${before.link.link})`} ` +
          `in ${l.chain}: a link between them was removed, or one of them changed`,
      );
    }
    previous.set(l.chain, { value: l.chainSha256, link: l });
  }
  return problems;
}

/** Every record has its link, with the fields it was linked with; every link its record. */
function recordProblems(records: ReadonlyMap<string, ChainedRecord[]>, links: readonly Link[]): string[] {
  const problems: string[] = [];
  const byKey = new Map(links.map((l) => [`${l.kind}\n${l.key}`, l]));
  const held = new Set<string>();
  for (const [kind, list] of records) {
    for (const record of list) {
      const id = `${kind}\n${record.key}`;
      held.add(id);
      const link = byKey.get(id);
      if (link === undefined) {
        problems.push(`${nounOf(kind)} ${record.key}: not chained: recorded outside cloudunits`);
        continue;
      }
      const now = fieldHashes(record.fields);
      const changed = Object.keys(now)
        .filter((name) => link.fields[name] !== undefined && link.fields[name] !== now[name])
        .sort();
      const removed = Object.keys(link.fields)
        .filter((name) => now[name] === undefined)
        .sort();
      const added = Object.keys(now)
        .filter((name) => link.fields[name] === undefined)
        .sort();
      if (record.chain !== link.chain) changed.unshift(`its sequence (${link.chain} → ${record.chain})`);
      const parts = [
        ...(changed.length > 0 ? [`changed since recorded: ${changed.join(", ")}`] : []),
        ...(removed.length > 0 ? [`removed: ${removed.join(", ")}`] : []),
        ...(added.length > 0 ? [`added: ${added.join(", ")}`] : []),
      ];
      if (parts.length > 0) problems.push(`${nounOf(kind)} ${record.key}: ${parts.join("; ")}`);
    }
  }
  for (const l of links) {
    if (!held.has(`${l.kind}\n${l.key}`))
      problems.push(`${nounOf(l.kind)} ${l.key} was removed: its records are gone, its link ${l.link} is left`);
  }
  return problems;
}

/** The places of a numbered chain follow each other: an empty place is a record removed with its link. */
function placeProblems(records: ReadonlyMap<string, ChainedRecord[]>): string[] {
  const problems: string[] = [];
  const chains = new Map<string, ChainedRecord[]>();
  for (const list of records.values())
    for (const r of list) if (r.place !== undefined) chains.set(r.chain, [...(chains.get(r.chain) ?? []), r]);
  for (const [chain, list] of chains) {
    const sorted = [...list].sort((a, b) => a.place! - b.place!);
    for (let i = 1; i < sorted.length; i++) {
      const [a, b] = [sorted[i - 1]!, sorted[i]!];
      if (b.place! - a.place! > 1) {
        const gap =
          b.place! - a.place! === 2 ? `number ${a.place! + 1} is` : `numbers ${a.place! + 1}–${b.place! - 1} are`;
        problems.push(`${chain}: ${gap} missing, between ${a.key} and ${b.key} (removed)`);
      }
    }
  }
  return problems;
}

/** A head kept outside the warehouse is still the head of the register's first links. */
function keptProblems(kept: string | undefined, heads: ReadonlyMap<number, string>, last: number): string[] {
  if (kept === undefined) return [];
  const head = parseHead(kept);
  if (head === undefined)
    return [`the head kept, "${kept}", is not a head (N:SHA256, as invoices verify and list print it)`];
  if (head.links > last)
    return [
      `the head kept, ${head.links}:${head.sha256}, names ${head.links} links; the register holds ${last}: links were removed since it was kept`,
    ];
  if (heads.get(head.links) !== head.sha256) {
    return [
      `the register's first ${head.links} links are not those of the head kept (${head.links}:${head.sha256}): a record was changed, added or removed since, and the chain made again`,
    ];
  }
  return [];
}
