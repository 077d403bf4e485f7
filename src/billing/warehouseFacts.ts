import type { DuckDBConnection } from "@duckdb/node-api";
import { AccountHourFactsBuilder, type AccountHourFacts } from "./machineFacts.js";
import { paramTypes, type BillingParams } from "./lines.js";

/** Hours of the windows the warehouse is read in: one day's rows at a time, so memory does not grow with the period. */
const WINDOW_SECONDS = 86_400;

const WHERE = "hour_epoch >= $start AND hour_epoch < $end AND ($account IS NULL OR account_id = $account)";
const KEYS = "account_id::DOUBLE AS account_id, hour_epoch::DOUBLE AS hour_epoch";
const ORDER = "ORDER BY hour_epoch, account_id";

/** The rows billing reads, per table (the warehouse's columns; a measure is NULL where the file's value was impossible). */
const QUERIES = {
  accountHours: `SELECT ${KEYS} FROM account_hours WHERE ${WHERE} ${ORDER}`,
  cloudspaces: `SELECT ${KEYS}, cloudspace_id, state FROM cloudspaces WHERE ${WHERE} ${ORDER}`,
  machines: `SELECT ${KEYS}, cloudspace_id, machine_id, type, status, image_name, mem_mb, vcpus FROM machines WHERE ${WHERE} ${ORDER}`,
  disks: `SELECT ${KEYS}, cloudspace_id, machine_id, size_gb, cfg_total_iops_sec, cfg_read_iops_sec, cfg_write_iops_sec FROM disks WHERE ${WHERE} ${ORDER}`,
  nics: `SELECT ${KEYS}, cloudspace_id, machine_id, is_gateway, type, tx_bytes, rx_bytes FROM nics WHERE ${WHERE} ${ORDER}`,
};

/** The columns billing reads from the warehouse's data tables: what an in-memory load for billing keeps. */
export const BILLING_COLUMNS = {
  account_hours: ["account_id", "hour_epoch"],
  cloudspaces: ["account_id", "hour_epoch", "cloudspace_id", "state"],
  machines: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", "type", "vcpus", "mem_mb", "image_name", "status"],
  disks: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", "size_gb", "cfg_total_iops_sec", "cfg_read_iops_sec", "cfg_write_iops_sec"],
  nics: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", "is_gateway", "type", "tx_bytes", "rx_bytes"],
} as const;

/** The data tables billing reads. */
export const BILLING_TABLES = Object.keys(BILLING_COLUMNS) as (keyof typeof BILLING_COLUMNS)[];

type Column = readonly unknown[];

/** A table's rows of one window, as columns, with a cursor over its (hour, account) runs. */
class Rows {
  private at = 0;
  private constructor(private readonly columns: Column[]) {}

  static async read(connection: DuckDBConnection, sql: string, values: Record<string, bigint | null>): Promise<Rows> {
    const reader = await connection.runAndReadAll(sql, values, await paramTypes());
    return new Rows(reader.getColumnsJS() as Column[]);
  }

  /** The (account, hour) of every row. */
  *keys(): Generator<[number, number]> {
    const [accounts, hours] = this.columns as [number[], number[]];
    for (let i = 0; i < (hours?.length ?? 0); i++) yield [accounts[i]!, hours[i]!];
  }

  /** Calls `each(column values, row)` for every row of account-hour (hour, account), skipping rows before it. */
  take(hour: number, account: number, each: (c: Column[], row: number) => void): void {
    const [accounts, hours] = this.columns as [number[], number[]];
    const n = hours?.length ?? 0;
    while (this.at < n && (hours[this.at]! < hour || (hours[this.at] === hour && accounts[this.at]! < account))) this.at++;
    while (this.at < n && hours[this.at] === hour && accounts[this.at] === account) each(this.columns, this.at++);
  }
}

/**
 * The facts of every account-hour of `[start, end)` (one account, or all) in a warehouse, in
 * hour order (then account), read one day at a time: the rows of the data tables, fed to
 * the same facts builder as the files' bytes.
 */
export async function* warehouseFacts(connection: DuckDBConnection, params: BillingParams, externalNicType: string): AsyncGenerator<AccountHourFacts> {
  const builder = new AccountHourFactsBuilder(externalNicType);
  const account = params.accountId === undefined ? null : BigInt(params.accountId);
  for (let from = params.start; from < params.end; from += WINDOW_SECONDS) {
    const values = { start: BigInt(from), end: BigInt(Math.min(from + WINDOW_SECONDS, params.end)), account };
    const hours = await Rows.read(connection, QUERIES.accountHours, values);
    const cloudspaces = await Rows.read(connection, QUERIES.cloudspaces, values);
    const machines = await Rows.read(connection, QUERIES.machines, values);
    const disks = await Rows.read(connection, QUERIES.disks, values);
    const nics = await Rows.read(connection, QUERIES.nics, values);
    for (const [accountId, hourEpoch] of hours.keys()) {
      builder.begin(accountId, hourEpoch);
      cloudspaces.take(hourEpoch, accountId, (c, r) => builder.cloudSpace(c[2]![r] as number, c[3]![r] as string));
      machines.take(hourEpoch, accountId, (c, r) => builder.machine(
        c[2]![r] as number, c[3]![r] as number, c[4]![r] as string, c[5]![r] as string, c[6]![r] as string, c[7]![r] as number | null, c[8]![r] as number | null,
      ));
      disks.take(hourEpoch, accountId, (c, r) => builder.diskOf(
        c[2]![r] as number, c[3]![r] as number, c[4]![r] as number | null, c[5]![r] as number | null, c[6]![r] as number | null, c[7]![r] as number | null,
      ));
      nics.take(hourEpoch, accountId, (c, r) => builder.nicOf(
        c[2]![r] as number, c[3]![r] as number, c[4]![r] as boolean, c[5]![r] as string, c[6]![r] as number | null, c[7]![r] as number | null,
      ));
      yield builder.finish();
    }
  }
}
