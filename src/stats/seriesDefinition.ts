/**
 * How one statistics series is computed and laid out. Every series is one SQL query
 * returning rows `(hour_epoch, k1, k2, value)`: `k1`/`k2` are the keys below the series
 * name (a disk id, a NIC position, `in`/`out`, `allocated`/`inuse`, ...), NULL when unused.
 * The query's parameters are `$from` and `$till` (epoch seconds, half-open), `$account`
 * and, for machines and cloud spaces, `$id`.
 */
export interface SeriesDefinition {
  /** The response key (and `include` value), e.g. `vdisk-iops`. */
  name: string;
  sql: string;
  layout: SeriesLayout;
  /** The unit of the values, e.g. `KB/s`. */
  unit: string;
  /** Units of particular first-level keys that differ from `unit` (`allocated`: `vCPUs`). */
  unitByKey?: Record<string, string>;
  /** One line saying what the series is, for chart titles. */
  title: string;
}

/**
 * - `array`: one array; an hour without rows is 0 (a sum over nothing).
 * - `fixed`: an object with these key paths, always present; an hour without rows is 0.
 * - `keyed`: an object whose keys come from the data (disk ids, NIC positions), `depth`
 *   levels deep; an hour at which a key is absent is `null`.
 */
export type SeriesLayout =
  | { kind: "array" }
  | { kind: "fixed"; paths: readonly (readonly string[])[] }
  | { kind: "keyed"; depth: 1 | 2 };

/** The unit of the values at `path` (keys below the series name) of a series. */
export function unitOf(definition: SeriesDefinition, path: readonly string[]): string {
  const first = path[0];
  return (first !== undefined ? definition.unitByKey?.[first] : undefined) ?? definition.unit;
}

/** `sum(value)` per hour and key, unpivoted into `in` (received) and `out` (sent) rows. */
export function inOutSql(grouped: string, divisor: string): string {
  return `WITH n AS (${grouped})
    SELECT hour_epoch, k1, 'in' AS k2, rx_bytes / ${divisor} AS value FROM n
    UNION ALL
    SELECT hour_epoch, k1, 'out' AS k2, tx_bytes / ${divisor} AS value FROM n`;
}

/** Allocated vCPUs and CPU % in use (0 when no vCPUs) per hour, from a `machines` filter. */
export function cpuSplitSql(machinesWhere: string): string {
  return `WITH c AS (
      SELECT hour_epoch, CAST(sum(vcpus) AS DOUBLE) AS vcpus, sum(cpu_minutes) AS cpu_minutes
      FROM machines WHERE ${machinesWhere} GROUP BY hour_epoch)
    SELECT hour_epoch, 'allocated' AS k1, NULL AS k2, vcpus AS value FROM c
    UNION ALL
    SELECT hour_epoch, 'inuse' AS k1, NULL AS k2,
      CASE WHEN vcpus = 0 THEN 0 ELSE cpu_minutes / (60 * vcpus) * 100 END AS value FROM c`;
}

/**
 * The disks of machines (not of gateways) matching a filter on both tables, as a FROM clause
 * aliased `d`. Gateways have no disks on the platform; should one have any, they are not a
 * machine's and are left out, as billing leaves them out.
 */
export function machineDisksFrom(where: (alias: string) => string): string {
  return `disks d SEMI JOIN (SELECT hour_epoch, cloudspace_id, machine_id FROM machines m WHERE ${where("m")}) m
      ON d.hour_epoch = m.hour_epoch AND d.cloudspace_id = m.cloudspace_id AND d.machine_id = m.machine_id
    WHERE ${where("d")}`;
}
