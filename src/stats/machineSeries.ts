import { inOutSql, sumOrNull, type EntityQueries } from "./seriesDefinition.js";

const where = (alias: string) =>
  `${alias}.account_id = $account AND ${alias}.machine_id = $id AND ${alias}.hour_epoch >= $from AND ${alias}.hour_epoch < $till`;

/**
 * The series of one machine (seed 2.2 / 4.1; docs/statistics.md). A machine listed twice in one hour
 * (the same id in two cloud spaces of the account) is combined: its figures are summed.
 */
export const MACHINE_QUERIES: EntityQueries = {
  ctes: {
    entity_machines: `SELECT hour_epoch, vcpus, cpu_minutes, mem_mb FROM machines x WHERE ${where("x")}`,
    entity_disks: `SELECT hour_epoch, disk_id, size_gb, iops_read, iops_write FROM disks x WHERE ${where("x")}`,
    entity_nics: `SELECT hour_epoch, nic_index, rx_bytes, tx_bytes FROM nics x WHERE ${where("x")} AND NOT x.is_gateway`,
  },
  timeSql: "SELECT DISTINCT hour_epoch FROM entity_machines",
  accountsSql: `SELECT DISTINCT account_id FROM machines
    WHERE machine_id = $id AND hour_epoch >= $from AND hour_epoch < $till ORDER BY account_id`,
  series: [
    {
      name: "cpu",
      title: "CPU in use: cpuMinutes / (60 × vcpus) × 100",
      unit: "%",
      layout: { kind: "array" },
      sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2,
          CASE WHEN vcpus = 0 AND cpu_minutes IS NOT NULL THEN 0 ELSE cpu_minutes / (60 * vcpus) * 100 END AS value
        FROM (SELECT hour_epoch, CAST(${sumOrNull("vcpus")} AS DOUBLE) AS vcpus, ${sumOrNull("cpu_minutes")} AS cpu_minutes
          FROM entity_machines GROUP BY hour_epoch)`,
    },
    {
      name: "memory",
      title: "Allocated memory",
      unit: "MB",
      layout: { kind: "array" },
      sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, ${sumOrNull("mem_mb")} AS value FROM entity_machines GROUP BY hour_epoch`,
    },
    {
      name: "vdisk-iops",
      title: "IOPS per disk (read + write), by disk id",
      unit: "IOPS",
      layout: { kind: "keyed", depth: 1 },
      sql: `SELECT hour_epoch, CAST(disk_id AS VARCHAR) AS k1, NULL AS k2, ${sumOrNull("iops_read + iops_write")} AS value
        FROM entity_disks GROUP BY hour_epoch, disk_id`,
    },
    {
      name: "vm-iops",
      title: "IOPS of all disks (read + write)",
      unit: "IOPS",
      layout: { kind: "array" },
      sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, ${sumOrNull("iops_read + iops_write")} AS value FROM entity_disks GROUP BY hour_epoch`,
    },
    {
      name: "vdisk-capacity",
      title: "Capacity per disk, by disk id",
      unit: "GB",
      layout: { kind: "keyed", depth: 1 },
      sql: `SELECT hour_epoch, CAST(disk_id AS VARCHAR) AS k1, NULL AS k2, ${sumOrNull("size_gb")} AS value
        FROM entity_disks GROUP BY hour_epoch, disk_id`,
    },
    {
      name: "vm-capacity",
      title: "Capacity of all disks",
      unit: "GB",
      layout: { kind: "array" },
      sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, ${sumOrNull("size_gb")} AS value FROM entity_disks GROUP BY hour_epoch`,
    },
    {
      name: "network",
      title: "Network per interface (by position in the machine's list): in = received, out = sent",
      unit: "KB/s",
      layout: { kind: "keyed", depth: 2, leaves: ["in", "out"] },
      sql: inOutSql(
        `SELECT hour_epoch, CAST(nic_index AS VARCHAR) AS k1, ${sumOrNull("rx_bytes")} AS rx_bytes, ${sumOrNull("tx_bytes")} AS tx_bytes
          FROM entity_nics GROUP BY hour_epoch, nic_index`,
        "1024 / 3600",
      ),
    },
  ],
};
