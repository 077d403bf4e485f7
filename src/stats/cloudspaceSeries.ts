import {
  CPU_SPLIT_SERIES,
  capacityTbSeries,
  inOutSql,
  machineDisksSql,
  totalIopsSeries,
  sumOrNull,
  type EntityQueries,
} from "./seriesDefinition.js";

const where = (alias: string) =>
  `${alias}.account_id = $account AND ${alias}.cloudspace_id = $id AND ${alias}.hour_epoch >= $from AND ${alias}.hour_epoch < $till`;

/**
 * The series of one cloud space (seed 2.3 / 4.2; docs/statistics.md), over its machines (every machine
 * that is not the gateway) and, for `network`, its gateway.
 */
export const CLOUDSPACE_QUERIES: EntityQueries = {
  ctes: {
    entity_machines: `SELECT hour_epoch, cloudspace_id, machine_id, vcpus, cpu_minutes, mem_mb FROM machines x WHERE ${where("x")}`,
    entity_disks: machineDisksSql(where("d")),
    entity_nics: `SELECT hour_epoch, is_gateway, rx_bytes, tx_bytes FROM nics x WHERE ${where("x")}`,
  },
  timeSql: `SELECT DISTINCT hour_epoch FROM cloudspaces x WHERE ${where("x")}`,
  accountsSql: `SELECT DISTINCT account_id FROM cloudspaces
    WHERE cloudspace_id = $id AND hour_epoch >= $from AND hour_epoch < $till ORDER BY account_id`,
  series: [
    totalIopsSeries("cloud space"),
    capacityTbSeries("capacity", "cloud space"),
    CPU_SPLIT_SERIES,
    {
      name: "memory",
      title: "Allocated memory of the cloud space's machines",
      unit: "MB",
      layout: { kind: "array" },
      sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, ${sumOrNull("mem_mb")} AS value FROM entity_machines GROUP BY hour_epoch`,
    },
    {
      name: "network",
      title: "Network in the hour: machines (vms) and gateway; in = received, out = sent",
      unit: "MB",
      layout: {
        kind: "fixed",
        paths: [
          ["vms", "in"],
          ["vms", "out"],
          ["gateways", "in"],
          ["gateways", "out"],
        ],
      },
      sql: inOutSql(
        `SELECT hour_epoch, CASE WHEN is_gateway THEN 'gateways' ELSE 'vms' END AS k1,
            ${sumOrNull("rx_bytes")} AS rx_bytes, ${sumOrNull("tx_bytes")} AS tx_bytes
          FROM entity_nics GROUP BY hour_epoch, is_gateway`,
        "1024 / 1024",
      ),
    },
  ],
};
