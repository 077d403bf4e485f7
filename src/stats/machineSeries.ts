import { inOutSql, type SeriesDefinition } from "./seriesDefinition.js";

const where = (alias: string) =>
  `${alias}.account_id = $account AND ${alias}.machine_id = $id AND ${alias}.hour_epoch >= $from AND ${alias}.hour_epoch < $till`;

/**
 * The series of one machine (seed 2.2 / 4.1; SPEC 4). A machine listed twice in one hour
 * (the same id in two cloud spaces of the account) is combined: its figures are summed.
 */
export const MACHINE_SERIES: readonly SeriesDefinition[] = [
  {
    name: "cpu",
    title: "CPU in use: cpuMinutes / (60 × vcpus) × 100",
    unit: "%",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2,
        CASE WHEN sum(vcpus) = 0 THEN 0 ELSE sum(cpu_minutes) / (60 * CAST(sum(vcpus) AS DOUBLE)) * 100 END AS value
      FROM machines x WHERE ${where("x")} GROUP BY hour_epoch`,
  },
  {
    name: "memory",
    title: "Allocated memory",
    unit: "MB",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, sum(mem_mb) AS value
      FROM machines x WHERE ${where("x")} GROUP BY hour_epoch`,
  },
  {
    name: "vdisk-iops",
    title: "IOPS per disk (read + write), by disk id",
    unit: "IOPS",
    layout: { kind: "keyed", depth: 1 },
    sql: `SELECT hour_epoch, CAST(disk_id AS VARCHAR) AS k1, NULL AS k2, sum(iops_read + iops_write) AS value
      FROM disks x WHERE ${where("x")} GROUP BY hour_epoch, disk_id`,
  },
  {
    name: "vm-iops",
    title: "IOPS of all disks (read + write)",
    unit: "IOPS",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, sum(iops_read + iops_write) AS value
      FROM disks x WHERE ${where("x")} GROUP BY hour_epoch`,
  },
  {
    name: "vdisk-capacity",
    title: "Capacity per disk, by disk id",
    unit: "GB",
    layout: { kind: "keyed", depth: 1 },
    sql: `SELECT hour_epoch, CAST(disk_id AS VARCHAR) AS k1, NULL AS k2, sum(size_gb) AS value
      FROM disks x WHERE ${where("x")} GROUP BY hour_epoch, disk_id`,
  },
  {
    name: "vm-capacity",
    title: "Capacity of all disks",
    unit: "GB",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, sum(size_gb) AS value
      FROM disks x WHERE ${where("x")} GROUP BY hour_epoch`,
  },
  {
    name: "network",
    title: "Network per interface (by position in the machine's list): in = received, out = sent",
    unit: "KB/s",
    layout: { kind: "keyed", depth: 2 },
    sql: inOutSql(
      `SELECT hour_epoch, CAST(nic_index AS VARCHAR) AS k1, sum(rx_bytes) AS rx_bytes, sum(tx_bytes) AS tx_bytes
        FROM nics x WHERE ${where("x")} AND NOT x.is_gateway GROUP BY hour_epoch, nic_index`,
      "1024 / 3600",
    ),
  },
];

/** The hours at which the machine has a sample. */
export const MACHINE_TIME_SQL = `SELECT DISTINCT hour_epoch FROM machines x WHERE ${where("x")} ORDER BY hour_epoch`;

/** The accounts in which the machine id has samples in the period, for disambiguation. */
export const MACHINE_ACCOUNTS_SQL = `SELECT DISTINCT account_id FROM machines
  WHERE machine_id = $id AND hour_epoch >= $from AND hour_epoch < $till ORDER BY account_id`;
