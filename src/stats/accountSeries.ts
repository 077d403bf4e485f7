import {
  CPU_SPLIT_SERIES,
  capacityTbSeries,
  machineDisksSql,
  totalIopsSeries,
  sumOrNull,
  type EntityQueries,
} from "./seriesDefinition.js";

const where = (alias: string) =>
  `${alias}.account_id = $account AND ${alias}.hour_epoch >= $from AND ${alias}.hour_epoch < $till`;

/**
 * The series of one account (seed 2.4 / 4.3; docs/statistics.md), over all its cloud spaces.
 * `storage-capacity` (the name of the seed's request example) is the same series as
 * `capacity`, returned under the name that was asked for.
 */
export const ACCOUNT_QUERIES: EntityQueries = {
  ctes: {
    entity_machines: `SELECT hour_epoch, cloudspace_id, machine_id, vcpus, cpu_minutes, mem_mb FROM machines x WHERE ${where("x")}`,
    entity_disks: machineDisksSql(where("d")),
    entity_nics: `SELECT hour_epoch, rx_bytes, tx_bytes FROM nics x WHERE ${where("x")}`,
  },
  timeSql: `SELECT hour_epoch FROM account_hours x WHERE ${where("x")}`,
  series: [
    capacityTbSeries("capacity", "account"),
    capacityTbSeries("storage-capacity", "account"),
    totalIopsSeries("account"),
    CPU_SPLIT_SERIES,
    {
      name: "memory",
      title: "Allocated memory of the account's machines",
      unit: "GB",
      layout: { kind: "array" },
      sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, ${sumOrNull("mem_mb")} / 1024 AS value FROM entity_machines GROUP BY hour_epoch`,
    },
    {
      name: "network",
      title: "Network of all machines and gateways: in = received, out = sent",
      unit: "MB/s",
      layout: { kind: "fixed", paths: [["in"], ["out"]] },
      sql: `SELECT hour_epoch, unnest(['in', 'out']) AS k1, NULL AS k2,
          unnest([${sumOrNull("rx_bytes")} / 1024 / 1024 / 3600, ${sumOrNull("tx_bytes")} / 1024 / 1024 / 3600]) AS value
        FROM entity_nics GROUP BY hour_epoch`,
    },
  ],
};
