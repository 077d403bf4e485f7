import { GATEWAY_TYPE, type ColumnSelection } from "../store/columnBatch.js";
import { MEASURED_FIELDS } from "../store/impossibleValues.js";
import type { CuRollup } from "./unitNames.js";
import type { Units } from "./units.js";

/**
 * The data-table columns billing reads (these CTEs, and the data-quality queries): what an
 * in-memory load for billing keeps.
 */
export const BILLING_COLUMNS = {
  account_hours: ["account_id", "hour_epoch"],
  cloudspaces: ["account_id", "hour_epoch", "cloudspace_id", "state"],
  machines: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", "type", "vcpus", "mem_mb", "image_name", "status"],
  disks: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", "size_gb", "cfg_total_iops_sec", "cfg_read_iops_sec", "cfg_write_iops_sec"],
  nics: ["account_id", "hour_epoch", "cloudspace_id", "machine_id", "is_gateway", "type", "tx_bytes", "rx_bytes"],
} as const satisfies ColumnSelection;

/** The data tables billing reads. */
export const BILLING_TABLES = Object.keys(BILLING_COLUMNS) as (keyof typeof BILLING_COLUMNS)[];

/** The measures billing reads, by part (SPEC 3.1: an impossible value in one of these stops billing, or counts 0 under --skip-bad). */
const BILLED_MEASURES = {
  machine: MEASURED_FIELDS.machine.map((f) => f.column).filter((c) => (BILLING_COLUMNS.machines as readonly string[]).includes(c)),
  disk: MEASURED_FIELDS.disk.map((f) => f.column).filter((c) => (BILLING_COLUMNS.disks as readonly string[]).includes(c)),
  nic: MEASURED_FIELDS.nic.map((f) => f.column).filter((c) => (BILLING_COLUMNS.nics as readonly string[]).includes(c)),
};

const num = (n: number) => `CAST('${String(n)}' AS DOUBLE)`;
const str = (s: string) => `'${s.replaceAll("'", "''")}'`;
const list = (items: readonly string[]) => (items.length === 0 ? "NULL" : items.map(str).join(", "));

/**
 * The condition on `impossible_values` (alias `b`) selecting the impossible values billing
 * uses in `[$start, $end)` for `$account` (NULL: every account): vcpus and mem of the billed
 * machine type, size and the limits of their disks, tx and rx of the external NICs of those
 * machines and of gateways. The CTEs below count them as 0.
 */
export function billedImpossibleWhere(units: Units): string {
  return `b.hour_epoch >= $start AND b.hour_epoch < $end AND ($account IS NULL OR b.account_id = $account) AND (
    (b.part = 'machine' AND b.machine_type = ${str(units.vmType)} AND b.column_name IN (${list(BILLED_MEASURES.machine)}))
    OR (b.part = 'disk' AND b.machine_type = ${str(units.vmType)} AND b.column_name IN (${list(BILLED_MEASURES.disk)}))
    OR (b.part = 'nic' AND b.machine_type IN (${list([units.vmType, GATEWAY_TYPE])}) AND b.nic_type = ${str(units.externalNicType)}
        AND b.column_name IN (${list(BILLED_MEASURES.nic)})))`;
}

/**
 * The one SQL definition of the billing units: a `WITH` clause whose CTEs hold one row per
 * hour and entity, every unit in unit-hours (a sample of hour `t` counts one hour):
 *
 * - `bill_machine_hours` (account_id, hour_epoch, cloudspace_id, machine_id): VMs only;
 * - `bill_cloudspace_hours` (account_id, hour_epoch, cloudspace_id), with NU;
 * - `bill_account_hours` (account_id, hour_epoch), with NU;
 * - `bill_environment_hours` (hour_epoch): every account's machines in that hour.
 *
 * Every level has the columns mem_mb, vcpus (billed compute), cu_sum (Σ of its machines'
 * CU), CU, SU, TU, NU, VCU, MU, WU, PIU, external_bytes, gateway_piu (the part of PIU that
 * is the gateways' public IPs). CU is computed from the level's
 * own totals under `aggregate`, or is `cu_sum` under `sum`. Parameters: `$start`, `$end`
 * (half-open `[start, end)`, epoch seconds) and `$account` (NULL for every account).
 * An impossible value (NULL in its column, SPEC 3.1) counts as 0: callers refuse to bill
 * one unless told to skip bad data (see {@link billedImpossibleWhere}).
 */
export function billingCtes(units: Units, cuRollup: CuRollup): string {
  const filter = (alias: string) =>
    `${alias}.hour_epoch >= $start AND ${alias}.hour_epoch < $end AND ($account IS NULL OR ${alias}.account_id = $account)`;
  const billed = units.billableStatuses === null ? "TRUE" : `v.status IN (${list(units.billableStatuses)})`;
  const cuOf = (mem: string, vcpus: string) =>
    `greatest(${mem} / ${num(units.mbPerGb)} / ${num(units.gbPerCu)}, ${vcpus} / ${num(units.vcpusPerCu)})`;
  const levelCu = cuRollup === "aggregate" ? cuOf("mem_mb", "vcpus") : "cu_sum";
  const nu = `external_bytes * ${num(units.nicBytesPerValue)} / ${num(units.bytesPerNu)}`;
  const ext = str(units.externalNicType);
  const sums = `fsum(mem_mb) AS mem_mb, sum(vcpus) AS vcpus, fsum(cu_sum) AS cu_sum, fsum(SU) AS SU, fsum(TU) AS TU,
    fsum(external_bytes) AS external_bytes, fsum(VCU) AS VCU, fsum(MU) AS MU, fsum(WU) AS WU, fsum(PIU) AS PIU,
    fsum(gateway_piu) AS gateway_piu`;
  return `WITH
bill_vm AS (
  SELECT v.account_id, v.hour_epoch, v.cloudspace_id, v.machine_id, v.image_name,
    CASE WHEN ${billed} THEN coalesce(v.mem_mb, 0) ELSE 0 END AS mem_mb,
    CASE WHEN ${billed} THEN coalesce(v.vcpus, 0) ELSE 0 END::BIGINT AS vcpus
  FROM machines v
  WHERE v.type = ${str(units.vmType)} AND ${filter("v")}
),
bill_disk AS (
  SELECT d.account_id, d.hour_epoch, d.cloudspace_id, d.machine_id, fsum(coalesce(d.size_gb, 0)) AS size_gb,
    fsum(CASE WHEN coalesce(d.cfg_total_iops_sec, 0) > 0 THEN d.cfg_total_iops_sec
              WHEN coalesce(d.cfg_read_iops_sec, 0) + coalesce(d.cfg_write_iops_sec, 0) > 0
                THEN coalesce(d.cfg_read_iops_sec, 0) + coalesce(d.cfg_write_iops_sec, 0)
              ELSE 0 END) AS iops_limit
  FROM disks d WHERE ${filter("d")}
  GROUP BY d.account_id, d.hour_epoch, d.cloudspace_id, d.machine_id
),
bill_nic AS (
  SELECT n.account_id, n.hour_epoch, n.cloudspace_id, n.machine_id, n.is_gateway,
    count(*) FILTER (WHERE n.type = ${ext}) AS external_nics,
    coalesce(fsum(coalesce(n.tx_bytes, 0) + coalesce(n.rx_bytes, 0)) FILTER (WHERE n.type = ${ext}), 0) AS external_bytes
  FROM nics n WHERE ${filter("n")}
  GROUP BY n.account_id, n.hour_epoch, n.cloudspace_id, n.machine_id, n.is_gateway
),
bill_machine_hours AS (
  SELECT v.account_id, v.hour_epoch, v.cloudspace_id, v.machine_id, v.mem_mb, v.vcpus,
    ${cuOf("v.mem_mb", "v.vcpus")} AS cu_sum,
    ${cuOf("v.mem_mb", "v.vcpus")} AS CU,
    coalesce(d.size_gb, 0) / ${num(units.gbPerSu)} AS SU,
    coalesce(d.iops_limit, 0) / ${num(units.iopsPerTu)} AS TU,
    coalesce(n.external_bytes, 0) AS external_bytes,
    v.vcpus::DOUBLE AS VCU,
    v.mem_mb / ${num(units.mbPerGb)} AS MU,
    CASE WHEN regexp_matches(v.image_name, ${str(units.windowsPattern)}, 'i') THEN ${cuOf("v.mem_mb", "v.vcpus")} ELSE 0 END AS WU,
    coalesce(n.external_nics, 0)::DOUBLE AS PIU,
    0::DOUBLE AS gateway_piu
  FROM bill_vm v
  LEFT JOIN bill_disk d ON d.account_id = v.account_id AND d.hour_epoch = v.hour_epoch
    AND d.cloudspace_id = v.cloudspace_id AND d.machine_id = v.machine_id
  LEFT JOIN bill_nic n ON n.account_id = v.account_id AND n.hour_epoch = v.hour_epoch
    AND n.cloudspace_id = v.cloudspace_id AND n.machine_id = v.machine_id AND NOT n.is_gateway
),
bill_cs_machines AS (
  SELECT account_id, hour_epoch, cloudspace_id, ${sums}
  FROM bill_machine_hours GROUP BY account_id, hour_epoch, cloudspace_id
),
bill_cs_gateways AS (
  SELECT account_id, hour_epoch, cloudspace_id, sum(external_nics) AS external_nics, fsum(external_bytes) AS external_bytes
  FROM bill_nic WHERE is_gateway GROUP BY account_id, hour_epoch, cloudspace_id
),
bill_cloudspace_sums AS (
  SELECT c.account_id, c.hour_epoch, c.cloudspace_id,
    coalesce(m.mem_mb, 0) AS mem_mb, coalesce(m.vcpus, 0)::BIGINT AS vcpus, coalesce(m.cu_sum, 0) AS cu_sum,
    coalesce(m.SU, 0) AS SU, coalesce(m.TU, 0) AS TU,
    coalesce(m.external_bytes, 0) + coalesce(g.external_bytes, 0) AS external_bytes,
    coalesce(m.VCU, 0) AS VCU, coalesce(m.MU, 0) AS MU, coalesce(m.WU, 0) AS WU,
    coalesce(m.PIU, 0) + CASE WHEN c.state IN (${list(units.publicIpStates)}) AND coalesce(g.external_nics, 0) > 0 THEN 1 ELSE 0 END AS PIU,
    CASE WHEN c.state IN (${list(units.publicIpStates)}) AND coalesce(g.external_nics, 0) > 0 THEN 1 ELSE 0 END::DOUBLE AS gateway_piu
  FROM (SELECT account_id, hour_epoch, cloudspace_id, max(state) AS state FROM cloudspaces c WHERE ${filter("c")}
        GROUP BY account_id, hour_epoch, cloudspace_id) c
  LEFT JOIN bill_cs_machines m ON m.account_id = c.account_id AND m.hour_epoch = c.hour_epoch AND m.cloudspace_id = c.cloudspace_id
  LEFT JOIN bill_cs_gateways g ON g.account_id = c.account_id AND g.hour_epoch = c.hour_epoch AND g.cloudspace_id = c.cloudspace_id
),
bill_cloudspace_hours AS (
  SELECT *, ${levelCu} AS CU, ${nu} AS NU FROM bill_cloudspace_sums
),
bill_account_sums AS (
  SELECT a.account_id, a.hour_epoch,
    coalesce(s.mem_mb, 0) AS mem_mb, coalesce(s.vcpus, 0)::BIGINT AS vcpus, coalesce(s.cu_sum, 0) AS cu_sum,
    coalesce(s.SU, 0) AS SU, coalesce(s.TU, 0) AS TU, coalesce(s.external_bytes, 0) AS external_bytes,
    coalesce(s.VCU, 0) AS VCU, coalesce(s.MU, 0) AS MU, coalesce(s.WU, 0) AS WU, coalesce(s.PIU, 0) AS PIU,
    coalesce(s.gateway_piu, 0) AS gateway_piu
  FROM account_hours a
  LEFT JOIN (SELECT account_id, hour_epoch, ${sums} FROM bill_cloudspace_sums GROUP BY account_id, hour_epoch) s
    ON s.account_id = a.account_id AND s.hour_epoch = a.hour_epoch
  WHERE ${filter("a")}
),
bill_account_hours AS (
  SELECT *, ${levelCu} AS CU, ${nu} AS NU FROM bill_account_sums
),
bill_environment_hours AS (
  SELECT *, ${levelCu} AS CU, ${nu} AS NU
  FROM (SELECT hour_epoch, count(*) AS accounts, ${sums} FROM bill_account_sums GROUP BY hour_epoch)
)
`;
}
