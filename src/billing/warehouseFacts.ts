import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { AccountHourFactsBuilder, counted, type AccountHourFacts, type MachineValues } from "../load/machineFacts.js";
import {
  DISK_FIELDS,
  DISK_FIELDS_READ,
  factColumnsSql,
  OWN_FACTS,
  perFact,
  storedFactColumns,
  VM_FACT_NAMES,
  VM_FACTS,
  type VmFactColumns,
  type VmFactName,
} from "../load/vmFacts.js";
import type { Period } from "../base/period.js";
import { periodSql, runsWithin } from "../base/period.js";
import { duckdbApi } from "../base/duckdb.js";
import { readColumns } from "./readColumns.js";

/**
 * The warehouse is read in windows of whole days, so memory does not grow with the period: a
 * window holds one day, or more while their machine rows stay within `WINDOW_ROWS` (about a day
 * of 2,000 machines); days without an account-hour are not read. Reading a day cost four
 * queries even when it held a few rows or none: a month of a small warehouse took 124 of them.
 */
const DAY_SECONDS = 86_400;
const WINDOW_ROWS = 50_000;

const WHERE = periodSql();
const KEYS = "account_id::DOUBLE AS account_id, hour_epoch::DOUBLE AS hour_epoch";

/**
 * The text columns billing reads that repeat from row to row: read as their position in a
 * dictionary of the period's distinct values (`code`), since making a JavaScript string of every
 * row's text cost more than the rest of the read.
 */
type TextColumns = Readonly<Record<string, readonly [string, string]>>;
type Dictionaries = Record<string, string[]>;
/** The facts of the machine record, the text ones: read from `machines` by the rows' road. */
const OWN_TEXTS = OWN_FACTS.filter((f) => f.text).map((f) => f.name);
const TEXTS: TextColumns = {
  machineType: ["machines", "type"],
  nicType: ["nics", "type"],
  ...Object.fromEntries(OWN_TEXTS.map((name) => [name, ["machines", VM_FACTS[name].column] as const])),
};
/** The same of the stored facts (they have no NIC type: their NICs are of the facts' external type). */
const FACT_TEXTS: TextColumns = {
  machineType: ["machine_facts", "type"],
  ...Object.fromEntries(
    VM_FACT_NAMES.filter((n) => VM_FACTS[n].kind === "str").map((name) => [
      name,
      ["machine_facts", VM_FACTS[name].column] as const,
    ]),
  ),
};

/** A text column read as its position in its dictionary, bound as the parameter `$<text>` (a text is never written into SQL). */
const code = (text: string, column: string): string => `list_position($${text}, ${column}) - 1`;

/** A fact's column as the stored facts' road reads it: a text as its code. */
const factColumn = (name: VmFactName): string =>
  VM_FACTS[name].kind === "str" ? code(name, VM_FACTS[name].column) : VM_FACTS[name].column;

/** The dictionaries as the parameters `code` reads, with their types. */
function dictionaryParams(
  d: Dictionaries,
  texts: TextColumns = TEXTS,
): { values: Record<string, DuckDBValue>; types: Record<string, DuckDBType> } {
  const { listValue, LIST, VARCHAR } = duckdbApi();
  const names = Object.keys(texts);
  return {
    values: Object.fromEntries(names.map((text) => [text, listValue(d[text])])),
    types: Object.fromEntries(names.map((text) => [text, LIST(VARCHAR)])),
  };
}

/**
 * A measure column read as NaN where it is NULL: both mean the file's value was impossible (the
 * facts count it as 0); a column without NULLs is read without DuckDB's validity mask, whose
 * lookup costs a BigInt per value.
 */
const measure = (column: string): string => `coalesce(${column}, 'NaN'::DOUBLE)`;

/**
 * The rows billing reads, per table (the warehouse's columns; a measure is NULL where the file's value was impossible);
 * `WHERE` may be narrowed (see `queriesOnly`).
 */
const queriesWhere = (WHERE: string) => ({
  accountHours: `SELECT ${KEYS} FROM account_hours WHERE ${WHERE}`,
  cloudspaces: `SELECT ${KEYS}, cloudspace_id, state FROM cloudspaces WHERE ${WHERE}`,
  // the facts of the machine record, in OWN_FACTS order
  machines: `SELECT ${KEYS}, cloudspace_id, machine_id, ${code("machineType", "type")},
             ${OWN_FACTS.map((f) => (f.text ? code(f.name, VM_FACTS[f.name].column) : measure(VM_FACTS[f.name].column))).join(", ")}
             FROM machines WHERE ${WHERE}`,
  // the fields of a disk the facts read (DISK_FIELDS_READ)
  disks: `SELECT ${KEYS}, cloudspace_id, machine_id, ${DISK_FIELDS_READ.map((f) => measure(DISK_FIELDS[f])).join(", ")}
          FROM disks WHERE ${WHERE}`,
  nics: `SELECT ${KEYS}, cloudspace_id, machine_id, is_gateway, ${code("nicType", "type")}, ${measure("tx_bytes")}, ${measure("rx_bytes")} FROM nics WHERE ${WHERE}`,
  // the stored facts (docs/warehouse.md): NOT NULL columns, an impossible value was counted as 0 at ingest
  machineFacts: `SELECT ${KEYS}, cloudspace_id, machine_id, ${code("machineType", "type")}, ${VM_FACT_NAMES.map(factColumn).join(", ")}
                   FROM machine_facts WHERE ${WHERE}`,
  gatewayFacts: `SELECT ${KEYS}, cloudspace_id, external_nics, external_bytes FROM gateway_facts WHERE ${WHERE}`,
});
const queries = queriesWhere(WHERE);
/** The queries of the hours listed in the parameter `$hours` alone. */
const queriesOnly = queriesWhere(`${WHERE} AND list_contains($hours, hour_epoch)`);
/** The rows of the accounts listed in the parameter `$accounts` alone. */
const IN_ACCOUNTS = `${WHERE} AND list_contains($accounts, account_id)`;
const queriesIn = queriesWhere(IN_ACCOUNTS);

/** The period of a read: `[start, end)` of one account (`accountId`), of some (`accountIds`), or of all. */
export type FactsPeriod = Period & { accountIds?: readonly number[] };

/** The parameter `$accounts` of a read of some accounts, and its type; none for one account or all. */
function accountsParam(
  period: FactsPeriod,
): { values: Record<string, DuckDBValue>; types: Record<string, DuckDBType> } | undefined {
  if (period.accountIds === undefined) return undefined;
  const { listValue, LIST, BIGINT } = duckdbApi();
  return { values: { accounts: listValue(period.accountIds.map(BigInt)) }, types: { accounts: LIST(BIGINT) } };
}

/** The columns billing reads from the warehouse's data tables: what an in-memory load for billing keeps. */
export const BILLING_COLUMNS = {
  account_hours: ["account_id", "hour_epoch"],
  cloudspaces: ["account_id", "hour_epoch", "cloudspace_id", "state"],
  machines: [
    "account_id",
    "hour_epoch",
    "cloudspace_id",
    "machine_id",
    "type",
    ...OWN_FACTS.map((f) => VM_FACTS[f.name].column),
  ],
  disks: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", ...DISK_FIELDS_READ.map((f) => DISK_FIELDS[f])],
  nics: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", "is_gateway", "type", "tx_bytes", "rx_bytes"],
} as const;

/** The data tables billing reads. */
export const BILLING_TABLES = Object.keys(BILLING_COLUMNS) as (keyof typeof BILLING_COLUMNS)[];

type Column = ArrayLike<unknown>;

/** The distinct values of the dictionary-read text columns in the period. */
async function dictionaries(
  connection: DuckDBConnection,
  values: Record<string, bigint | null>,
  texts: TextColumns = TEXTS,
): Promise<Dictionaries> {
  const out = {} as Dictionaries;
  for (const [text, [table, column]] of Object.entries(texts)) {
    const [list] = await readColumns(
      connection,
      `SELECT DISTINCT ${column} FROM ${table} WHERE ${WHERE} AND ${column} IS NOT NULL`,
      values,
    );
    out[text] = (list as string[]).sort();
  }
  return out;
}

/** The key of an account-hour within a window: exact for account ids below 2^32 and any hour. */
const hourKey = (account: number, hour: number): number => account * 2 ** 21 + ((hour / 3600) % 2 ** 21);

/**
 * A table's rows of one window, as columns, with the rows of each account-hour found by key
 * (read unordered: DuckDB's sort of a day's rows by hour and account took as long as reading them).
 */
class Rows {
  private readonly ranges = new Map<number, { start: number; count: number }>();
  private readonly order: Int32Array;

  private constructor(private readonly columns: Column[]) {
    const [accounts, hours] = columns as [ArrayLike<number>, ArrayLike<number>];
    const n = hours?.length ?? 0;
    const keys = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const key = (keys[i] = hourKey(accounts[i]!, hours[i]!));
      const range = this.ranges.get(key);
      if (range === undefined) this.ranges.set(key, { start: 0, count: 1 });
      else range.count++;
    }
    let start = 0;
    for (const range of this.ranges.values()) {
      range.start = start;
      start += range.count;
      range.count = 0;
    }
    this.order = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const range = this.ranges.get(keys[i]!)!;
      this.order[range.start + range.count++] = i;
    }
  }

  /** `spare`: the rows of a window read before, no longer used, whose columns' memory this read takes (see `readColumns`). */
  static async read(
    connection: DuckDBConnection,
    sql: string,
    values: Record<string, DuckDBValue>,
    types: Record<string, DuckDBType>,
    spare?: Rows,
  ): Promise<Rows> {
    return new Rows(await readColumns(connection, sql, values, types, spare?.columns));
  }

  /** The (account, hour) of every row, by hour, then account. */
  keys(): [number, number][] {
    const [accounts, hours] = this.columns as [ArrayLike<number>, ArrayLike<number>];
    return Array.from({ length: hours?.length ?? 0 }, (_, i): [number, number] => [accounts[i]!, hours[i]!]).sort(
      (a, b) => a[1] - b[1] || a[0] - b[0],
    );
  }

  /** Calls `each(column values, row)` for every row of account-hour (hour, account). */
  take(hour: number, account: number, each: (c: Column[], row: number) => void): void {
    const range = this.ranges.get(hourKey(account, hour));
    if (range === undefined) return;
    for (let k = range.start; k < range.start + range.count; k++) each(this.columns, this.order[k]!);
  }
}

/**
 * The facts of every account-hour of `[start, end)` (one account, some, or all) in a warehouse, in
 * hour order (then account), read in windows of whole days (`dayWindows`): the facts stored at ingest
 * (`machine_facts`, `gateway_facts`) when the warehouse has them for `externalNicType`, else
 * the rows of the data tables, fed to the same facts builder as the files' bytes.
 */
export async function* warehouseFacts(
  connection: DuckDBConnection,
  params: FactsPeriod,
  externalNicType: string,
  windowLimit = WINDOW_ROWS,
): AsyncGenerator<AccountHourFacts> {
  if (await factsReadable(connection, externalNicType))
    yield* storedFacts(connection, params, externalNicType, undefined, windowLimit);
  else yield* rowFacts(connection, params, externalNicType, windowLimit);
}

/**
 * True when billing with `externalNicType` may read the facts stored at ingest instead of
 * the disk and NIC rows: the warehouse says its facts are whole (`warehouse_meta`, written
 * with them, or by the upgrade of an older file), count NICs of that type, and are those of
 * `VM_FACTS`.
 */
export async function factsReadable(connection: DuckDBConnection, externalNicType: string): Promise<boolean> {
  const found = await connection.runAndReadAll(
    "SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'warehouse_meta'",
  );
  if (Number(found.getRowObjectsJS()[0]!.n) === 0) return false; // a file made before the facts, opened read-only
  const rows = (
    await connection.runAndReadAll(
      "SELECT key, value FROM warehouse_meta WHERE key IN ('facts_external_nic_type', 'facts_columns')",
    )
  ).getRowObjectsJS();
  const value = (key: string) => rows.find((r) => r.key === key)?.value as string | undefined;
  // a file whose facts are another set than VM_FACTS' (an older cloudunits'), opened read-only: the rows
  return (
    value("facts_external_nic_type") === externalNicType &&
    storedFactColumns(value("facts_columns")) === factColumnsSql()
  );
}

/**
 * The windows of `[start, end)` (one account, or all; see `dayWindows`, at most `limit` rows
 * each but for a single day), with the rows of the named queries in each, and the
 * dictionaries of the period's `texts`.
 */
async function* windowRows<K extends keyof typeof queries>(
  connection: DuckDBConnection,
  params: FactsPeriod,
  texts: TextColumns,
  names: readonly K[],
  hours: readonly number[] | undefined,
  limit: number,
): AsyncGenerator<{ d: Dictionaries; rows: Record<K, Rows> }> {
  const account = params.accountId === undefined ? null : BigInt(params.accountId);
  // the texts of every account of the period: a superset of the accounts listed (codes are positions)
  const d = await dictionaries(connection, { start: BigInt(params.start), end: BigInt(params.end), account }, texts);
  const dictionary = dictionaryParams(d, texts);
  // a few hours listed: read in one window
  const only =
    hours === undefined
      ? undefined
      : {
          values: { hours: duckdbApi().listValue(hours.map(BigInt)) },
          types: { hours: duckdbApi().LIST(duckdbApi().BIGINT) },
        };
  const accounts = accountsParam(params);
  const period = { start: BigInt(params.start), end: BigInt(params.end), account };
  const windows =
    only === undefined
      ? await dayWindows(
          connection,
          period,
          names.includes("machines" as K) ? "machines" : "machine_facts",
          limit,
          params.accountIds,
        )
      : [[params.start, params.end]];
  const read = only !== undefined ? queriesOnly : accounts !== undefined ? queriesIn : queries;
  const types = { ...dictionary.types, ...only?.types, ...accounts?.types };
  let before: Partial<Record<K, Rows>> = {}; // the window before's rows: done with when the next is asked for
  for (const [from, to] of windows) {
    const values = {
      start: BigInt(from),
      end: BigInt(Math.min(to, params.end)),
      account,
      ...dictionary.values,
      ...only?.values,
      ...accounts?.values,
    };
    const rows = {} as Record<K, Rows>;
    for (const name of names) rows[name] = await Rows.read(connection, read[name], values, types, before[name]);
    yield { d, rows };
    before = rows;
  }
}

/**
 * The windows `[from, to)` of the period `values` (epoch seconds; `to` may pass its end) that
 * hold account-hours: runs of whole days from its start, each of one day, or of more while their
 * account-hours and rows of `table` stay within `limit`; days without an account-hour are left out.
 */
export async function dayWindows(
  connection: DuckDBConnection,
  values: Record<string, bigint | null>,
  table: "machines" | "machine_facts",
  limit = WINDOW_ROWS,
  accountIds?: readonly number[],
): Promise<[number, number][]> {
  const accounts = accountsParam({ start: 0, end: 0, ...(accountIds === undefined ? {} : { accountIds }) });
  const where = accounts === undefined ? WHERE : IN_ACCOUNTS;
  const perDay = (from: string) =>
    `SELECT (hour_epoch - $start) // 86400 AS day, count(*) AS n FROM ${from} WHERE ${where} GROUP BY ALL`; // DAY_SECONDS
  const [days, rows] = (await readColumns(
    connection,
    `
    SELECT day::DOUBLE AS day, sum(n)::DOUBLE AS n FROM (${perDay("account_hours")} UNION ALL ${perDay(table)})
    GROUP BY day ORDER BY day`,
    { ...values, ...accounts?.values },
    accounts?.types,
  )) as [Float64Array, Float64Array];
  const start = Number(values.start);
  return runsWithin(
    days.map((day) => start + day * DAY_SECONDS),
    rows,
    DAY_SECONDS,
    limit,
  );
}

/** A text by its code in a dictionary read by `code`. */
function textOf(dictionary: string[], code: unknown): string {
  const value = dictionary[code as number];
  if (value === undefined)
    throw new Error(`internal: text code ${String(code)} outside its dictionary of ${dictionary.length}`);
  return value;
}

/**
 * Copies the facts of `machineFacts` row `r` (each in its column after the keys, cloud space,
 * machine and type; a text by its code in its dictionary) into record `n` of `facts`: written
 * out fact by fact (see `perFact`), as it runs once per machine-hour.
 */
const readFacts: (
  facts: Record<VmFactName, (string | number)[]>,
  c: Column[],
  r: number,
  n: number,
  d: Dictionaries,
  text: typeof textOf,
) => void = perFact(["facts", "c", "r", "n", "d", "text"], VM_FACT_NAMES, (name, k) =>
  VM_FACTS[name].kind === "str"
    ? `facts.${name}[n] = text(d.${name}, c[${5 + k}][r]);`
    : `facts.${name}[n] = c[${5 + k}][r];`,
);

/**
 * The facts of `[start, end)` as stored at ingest: a row per machine-hour and per
 * cloud-space-hour with a gateway, instead of every disk and NIC row (docs/warehouse.md). The
 * cloud spaces' states come from `cloudspaces`, through the facts builder as from the rows.
 * `hours`: only these hours of the period (a few: read at once, not in day windows).
 */
export async function* storedFacts(
  connection: DuckDBConnection,
  params: FactsPeriod,
  externalNicType: string,
  hours?: readonly number[],
  windowLimit = WINDOW_ROWS,
): AsyncGenerator<AccountHourFacts> {
  const builder = new AccountHourFactsBuilder(externalNicType);
  const ids = { cloudspaceId: [] as number[], machineId: [] as number[], type: [] as string[] };
  const facts = Object.fromEntries(VM_FACT_NAMES.map((n) => [n, []])) as unknown as Record<
    VmFactName,
    (string | number)[]
  >;
  for await (const { d, rows } of windowRows(
    connection,
    params,
    FACT_TEXTS,
    ["accountHours", "cloudspaces", "machineFacts", "gatewayFacts"],
    hours,
    windowLimit,
  )) {
    const { accountHours: hours, cloudspaces, machineFacts: machines, gatewayFacts: gateways } = rows;
    for (const [accountId, hourEpoch] of hours.keys()) {
      builder.begin(accountId, hourEpoch);
      cloudspaces.take(hourEpoch, accountId, (c, r) => builder.cloudSpace(c[2]![r] as number, c[3]![r] as string));
      const spaces = builder.finish(); // no records: the cloud spaces alone
      let n = 0;
      machines.take(hourEpoch, accountId, (c, r) => {
        ids.cloudspaceId[n] = c[2]![r] as number;
        ids.machineId[n] = c[3]![r] as number;
        ids.type[n] = textOf(d.machineType!, c[4]![r]);
        readFacts(facts, c, r, n, d, textOf);
        n++;
      });
      const gatewayFacts = new Map<number, { externalNics: number; externalBytes: number }>();
      gateways.take(hourEpoch, accountId, (c, r) =>
        gatewayFacts.set(c[2]![r] as number, { externalNics: c[3]![r] as number, externalBytes: c[4]![r] as number }),
      );
      yield {
        accountId,
        hourEpoch,
        cloudspaceIds: spaces.cloudspaceIds,
        cloudspaceStates: spaces.cloudspaceStates,
        emptyCloudspaceRows: spaces.emptyCloudspaceRows,
        machines: n,
        ...ids,
        ...(facts as unknown as VmFactColumns),
        gateways: gatewayFacts,
      };
    }
  }
}

/**
 * The facts of `[start, end)` made of the rows of the data tables (a warehouse without stored
 * facts, or billed with another external NIC type than theirs), fed to the facts builder.
 */
export async function* rowFacts(
  connection: DuckDBConnection,
  params: FactsPeriod,
  externalNicType: string,
  windowLimit = WINDOW_ROWS,
): AsyncGenerator<AccountHourFacts> {
  const builder = new AccountHourFactsBuilder(externalNicType);
  const text = textOf;
  /** The machine's fields: the facts of the record, each in its column of a `machines` row (after the keys, cloud space, machine and type). */
  const own = OWN_FACTS.map((f, k) => ({ ...f, at: 5 + k }));
  const fields: Record<string, string | number | null> = {
    vcpus: 0,
    cpuMinutes: 0,
    mem: 0,
    imageName: "",
    status: "",
  } satisfies MachineValues;
  for await (const { d, rows } of windowRows(
    connection,
    params,
    TEXTS,
    ["accountHours", "cloudspaces", "machines", "disks", "nics"],
    undefined,
    windowLimit,
  )) {
    const { accountHours: hours, cloudspaces, machines, disks, nics } = rows;
    for (const [accountId, hourEpoch] of hours.keys()) {
      builder.begin(accountId, hourEpoch);
      cloudspaces.take(hourEpoch, accountId, (c, r) => builder.cloudSpace(c[2]![r] as number, c[3]![r] as string));
      machines.take(hourEpoch, accountId, (c, r) => {
        for (const { field, name, at, text: isText } of own)
          fields[field] = isText ? text(d[name]!, c[at]![r]) : (c[at]![r] as number);
        builder.machine(
          c[2]![r] as number,
          c[3]![r] as number,
          text(d.machineType!, c[4]![r]),
          fields as MachineValues,
        );
      });
      disks.take(hourEpoch, accountId, (c, r) => {
        const disk = builder.diskRecord;
        for (let k = 0; k < DISK_FIELDS_READ.length; k++) disk[DISK_FIELDS_READ[k]!] = counted(c[4 + k]![r] as number);
        builder.diskOf(c[2]![r] as number, c[3]![r] as number);
      });
      nics.take(hourEpoch, accountId, (c, r) =>
        builder.nicOf(
          c[2]![r] as number,
          c[3]![r] as number,
          c[4]![r] as boolean,
          text(d.nicType!, c[5]![r]),
          c[6]![r] as number | null,
          c[7]![r] as number | null,
        ),
      );
      yield builder.finish();
    }
  }
}
