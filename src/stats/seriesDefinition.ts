/**
 * How one statistics series is computed and laid out. Every series is one SQL query
 * returning rows `(hour_epoch, k1, k2, value)`: `k1`/`k2` are the keys below the series
 * name (a disk id, a NIC position, `in`/`out`, `allocated`/`inuse`, ...), NULL when unused.
 * It reads the entity's rows from the common table expressions of its entity
 * ({@link EntityQueries}), so that one request scans each warehouse table once, however
 * many series it asks for.
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
 *   levels deep; an hour at which a key is absent is `null`. `leaves` are the keys of the
 *   second level, created together in this order (`in`, `out`) when a first-level key appears.
 */
export type SeriesLayout =
  | { kind: "array" }
  | { kind: "fixed"; paths: readonly (readonly string[])[] }
  | { kind: "keyed"; depth: 1 }
  | { kind: "keyed"; depth: 2; leaves: readonly string[] };

/**
 * The SQL of one kind of entity. Parameters: `$from` and `$till` (epoch seconds, half-open),
 * `$account`, and for machines and cloud spaces `$id`.
 */
export interface EntityQueries {
  /**
   * Common table expressions holding the entity's rows in the period, by name
   * (`entity_machines`, `entity_disks`, `entity_nics`), in dependency order; a request
   * includes the ones its series and time query name, each materialized once.
   */
  ctes: Readonly<Record<string, string>>;
  /** The entity's sample hours (`hour_epoch`). */
  timeSql: string;
  /** For machines and cloud spaces: the accounts holding the id in the period (`account_id`). */
  accountsSql?: string;
  series: readonly SeriesDefinition[];
}

/** The unit of the values at `path` (keys below the series name) of a series. */
export function unitOf(definition: SeriesDefinition, path: readonly string[]): string {
  const first = path[0];
  return (first !== undefined ? definition.unitByKey?.[first] : undefined) ?? definition.unit;
}

/**
 * `sum(expr)` of a group, or NULL when `expr` is NULL in any of its rows: a measure holding an
 * impossible value (docs/warehouse.md, NULL in the warehouse) makes every figure it enters `null`.
 */
export function sumOrNull(expr: string): string {
  return `CASE WHEN count(*) = count(${expr}) THEN sum(${expr}) END`;
}

/** `sum(value)` per hour and key, unpivoted into `in` (received) and `out` (sent) rows. */
export function inOutSql(grouped: string, divisor: string): string {
  return `SELECT hour_epoch, k1, unnest(['in', 'out']) AS k2, unnest([rx_bytes / ${divisor}, tx_bytes / ${divisor}]) AS value
    FROM (${grouped})`;
}

/** `cpu` of a cloud space or an account: allocated vCPUs and CPU % in use (0 when no vCPUs) per hour, over `entity_machines`. */
export const CPU_SPLIT_SERIES: SeriesDefinition = {
  name: "cpu",
  title: "CPU: allocated vCPUs, and % in use (Σ cpuMinutes / (60 × Σ vcpus) × 100)",
  unit: "%",
  unitByKey: { allocated: "vCPUs" },
  layout: { kind: "fixed", paths: [["allocated"], ["inuse"]] },
  sql: `SELECT hour_epoch, unnest(['allocated', 'inuse']) AS k1, NULL AS k2,
    unnest([vcpus, CASE WHEN vcpus = 0 AND cpu_minutes IS NOT NULL THEN 0 ELSE cpu_minutes / (60 * vcpus) * 100 END]) AS value
  FROM (SELECT hour_epoch, CAST(${sumOrNull("vcpus")} AS DOUBLE) AS vcpus, ${sumOrNull("cpu_minutes")} AS cpu_minutes
    FROM entity_machines GROUP BY hour_epoch)`,
};

/**
 * The disks of the entity's machines (not of gateways): `disks` rows matching `where` whose
 * machine is in `entity_machines`. Gateways have no disks on the platform; should one have
 * any, they are not a machine's and are left out, as billing leaves them out.
 */
export function machineDisksSql(where: string): string {
  return `SELECT d.hour_epoch, d.disk_id, d.size_gb, d.iops_read, d.iops_write
    FROM disks d SEMI JOIN entity_machines m
      ON d.hour_epoch = m.hour_epoch AND d.cloudspace_id = m.cloudspace_id AND d.machine_id = m.machine_id
    WHERE ${where}`;
}

/** Σ IOPS (read + write) of the disks in `entity_disks`, per hour: `vdisk-iops` of a cloud space or an account. */
export function totalIopsSeries(owner: string): SeriesDefinition {
  return {
    name: "vdisk-iops",
    title: `IOPS of all disks of the ${owner}'s machines (read + write)`,
    unit: "IOPS",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, ${sumOrNull("iops_read + iops_write")} AS value FROM entity_disks GROUP BY hour_epoch`,
  };
}

/** Σ disk size in TB (GB / 1024) of the disks in `entity_disks`, per hour, under `name`. */
export function capacityTbSeries(name: string, owner: string): SeriesDefinition {
  return {
    name,
    title: `Capacity of all disks of the ${owner}'s machines`,
    unit: "TB",
    layout: { kind: "array" },
    sql: `SELECT hour_epoch, NULL AS k1, NULL AS k2, ${sumOrNull("size_gb")} / 1024 AS value FROM entity_disks GROUP BY hour_epoch`,
  };
}
