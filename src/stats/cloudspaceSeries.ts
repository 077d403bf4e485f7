import { cpuSplitSql, inOutSql, machineDisksFrom, type SeriesDefinition } from "./seriesDefinition.js";

const where = (alias: string) =>
  `${alias}.account_id = $account AND ${alias}.cloudspace_id = $id AND ${alias}.hour_epoch >= $from AND ${alias}.hour_epoch < $till`;

/**
 * The series of one cloud space (seed 2.3 / 4.2; SPEC 4), over its machines (every machine
 * that is not the gateway) and, for `network`, its gateway.
 */
export const CLOUDSPACE_SERIES: readonly SeriesDefinition[] = [
  {
    name: "vdisk-iops",
    title: "IOPS of all disks of the cloud space's machines (read + write)",
    unit: "IOPS",
    layout: { kind: "array" },
    sql: `SELECT d.hour_epoch, NULL AS k1, NULL AS k2, sum(d.iops_read + d.iops_write) AS value
      FROM ${machineDisksFrom(where)} GROUP BY d.hour_epoch`,
  },
  {
    name: "capacity",
    title: "Capacity of all disks of the cloud space's machines",
    unit: "TB",
    layout: { kind: "array" },
    sql: `SELECT d.hour_epoch, NULL AS k1, NULL AS k2, sum(d.size_gb) / 1024 AS value
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
    title: "Allocated memory of the cloud space's machines",
    unit: "MB",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, sum(mem_mb) AS value
      FROM machines x WHERE ${where("x")} GROUP BY hour_epoch`,
  },
  {
    name: "network",
    title: "Network in the hour: machines (vms) and gateway; in = received, out = sent",
    unit: "MB",
    layout: { kind: "fixed", paths: [["vms", "in"], ["vms", "out"], ["gateways", "in"], ["gateways", "out"]] },
    sql: inOutSql(
      `SELECT hour_epoch, CASE WHEN is_gateway THEN 'gateways' ELSE 'vms' END AS k1,
          sum(rx_bytes) AS rx_bytes, sum(tx_bytes) AS tx_bytes
        FROM nics x WHERE ${where("x")} GROUP BY hour_epoch, is_gateway`,
      "1024 / 1024",
    ),
  },
];

/** The hours at which the cloud space has a sample. */
export const CLOUDSPACE_TIME_SQL = `SELECT DISTINCT hour_epoch FROM cloudspaces x WHERE ${where("x")} ORDER BY hour_epoch`;

/** The accounts in which the cloud space id has samples in the period, for disambiguation. */
export const CLOUDSPACE_ACCOUNTS_SQL = `SELECT DISTINCT account_id FROM cloudspaces
  WHERE cloudspace_id = $id AND hour_epoch >= $from AND hour_epoch < $till ORDER BY account_id`;
