import { cpuSplitSql, machineDisksFrom, type SeriesDefinition } from "./seriesDefinition.js";

const where = (alias: string) => `${alias}.account_id = $account AND ${alias}.hour_epoch >= $from AND ${alias}.hour_epoch < $till`;

const capacity = (name: string): SeriesDefinition => ({
  name,
  title: "Capacity of all disks of the account's machines",
  unit: "TB",
  layout: { kind: "array" },
  sql: `SELECT d.hour_epoch, NULL AS k1, NULL AS k2, sum(d.size_gb) / 1024 AS value
    FROM ${machineDisksFrom(where)} GROUP BY d.hour_epoch`,
});

/**
 * The series of one account (seed 2.4 / 4.3; SPEC 4), over all its cloud spaces.
 * `storage-capacity` (the name of the seed's request example) is the same series as
 * `capacity`, returned under the name that was asked for.
 */
export const ACCOUNT_SERIES: readonly SeriesDefinition[] = [
  capacity("capacity"),
  capacity("storage-capacity"),
  {
    name: "vdisk-iops",
    title: "IOPS of all disks of the account's machines (read + write)",
    unit: "IOPS",
    layout: { kind: "array" },
    sql: `SELECT d.hour_epoch, NULL AS k1, NULL AS k2, sum(d.iops_read + d.iops_write) AS value
      FROM ${machineDisksFrom(where)} GROUP BY d.hour_epoch`,
  },
  {
    name: "cpu",
    title: "CPU: allocated vCPUs, and % in use (Σ cpuMinutes / (60 × Σ vcpus) × 100)",
    unit: "%",
    unitByKey: { allocated: "vCPUs" },
    layout: { kind: "fixed", paths: [["allocated"], ["inuse"]] },
    sql: cpuSplitSql(where("machines")),
  },
  {
    name: "memory",
    title: "Allocated memory of the account's machines",
    unit: "GB",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, sum(mem_mb) / 1024 AS value
      FROM machines x WHERE ${where("x")} GROUP BY hour_epoch`,
  },
  {
    name: "network",
    title: "Network of all machines and gateways: in = received, out = sent",
    unit: "MB/s",
    layout: { kind: "fixed", paths: [["in"], ["out"]] },
    sql: `WITH n AS (SELECT hour_epoch, sum(rx_bytes) AS rx_bytes, sum(tx_bytes) AS tx_bytes
        FROM nics x WHERE ${where("x")} GROUP BY hour_epoch)
      SELECT hour_epoch, 'in' AS k1, NULL AS k2, rx_bytes / 1024 / 1024 / 3600 AS value FROM n
      UNION ALL
      SELECT hour_epoch, 'out' AS k1, NULL AS k2, tx_bytes / 1024 / 1024 / 3600 AS value FROM n`,
  },
];

/** The hours at which the account has a sample (a loaded account-hour). */
export const ACCOUNT_TIME_SQL = `SELECT hour_epoch FROM account_hours x WHERE ${where("x")} ORDER BY hour_epoch`;
