/** One table of the Parquet export: the warehouse table it copies and the order of its rows. */
export interface ParquetTable {
  /** The warehouse table, and the folder under the export's directory. */
  table: string;
  /**
   * The row order inside each file: account, then the machine (or cloud space), then the
   * hour, then what tells a machine-hour's rows apart; the same order on every export, so a
   * month exported again from the same warehouse gives the same bytes.
   */
  orderBy: readonly string[];
}

/**
 * The warehouse's data tables as exported, in the order they are written: the raw tables, then
 * the billing facts of each machine-hour and cloud-space-hour (written at ingest; a warehouse
 * made before them has none, and its export has none either).
 */
export const PARQUET_DATA_TABLES: readonly ParquetTable[] = [
  { table: "account_hours", orderBy: ["account_id", "hour_epoch"] },
  { table: "cloudspaces", orderBy: ["account_id", "cloudspace_id", "hour_epoch"] },
  { table: "machines", orderBy: ["account_id", "machine_id", "hour_epoch", "cloudspace_id"] },
  { table: "gateways", orderBy: ["account_id", "gateway_id", "hour_epoch", "cloudspace_id"] },
  { table: "disks", orderBy: ["account_id", "machine_id", "hour_epoch", "cloudspace_id", "disk_index"] },
  { table: "nics", orderBy: ["account_id", "is_gateway", "machine_id", "hour_epoch", "cloudspace_id", "nic_index"] },
  { table: "machine_facts", orderBy: ["account_id", "machine_id", "hour_epoch", "cloudspace_id"] },
  { table: "gateway_facts", orderBy: ["account_id", "cloudspace_id", "hour_epoch"] },
];

/** The folder of one month of a table: `<table>/year=2026/month=10` (hive partitioning; the month is not zero-padded). */
export function partitionDir(table: string, year: number, month: number): string {
  return `${table}/year=${year}/month=${month}`;
}

/** The one file of a partition. */
export const PARTITION_FILE = "part-0.parquet";
