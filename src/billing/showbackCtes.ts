import type { Units } from "./units.js";

const num = (n: number) => `CAST('${String(n)}' AS DOUBLE)`;

/**
 * Showback (SPEC 3.2), the one place CU is allocated: CTEs that follow `billingCtes` (to be
 * appended to its `WITH` clause) and read only its `bill_*_hours` CTEs. Each hour the
 * account's CU is allocated to its cloud spaces in proportion to their own CU that hour, and
 * each cloud space's allocated CU to its machines in proportion to theirs (equal shares when
 * all are 0), so allocated CU adds up at every level under either CU rule:
 *
 * - `bill_cloudspace_showback`: `bill_cloudspace_hours` plus `cu_allocated` and `own_nic_nu`
 *   (NU of the gateway's own external NICs: the cloud space's NU less its machines');
 * - `bill_machine_showback`: `bill_machine_hours` plus `cu_allocated` and `own_nic_nu` (NU of
 *   the machine's external NICs, which the cloud space's NU includes).
 */
export function showbackCtes(units: Units): string {
  const nu = (bytes: string) => `${bytes} * ${num(units.nicBytesPerValue)} / ${num(units.bytesPerNu)}`;
  const share = (own: string, sum: string, count: string) => `CASE WHEN ${sum} > 0 THEN ${own} / ${sum} ELSE 1.0 / ${count} END`;
  return `,
bill_showback_cs_sums AS (
  SELECT account_id, hour_epoch, fsum(CU) AS cu, count(*) AS n FROM bill_cloudspace_hours GROUP BY account_id, hour_epoch
),
bill_showback_machine_sums AS (
  SELECT account_id, hour_epoch, cloudspace_id, fsum(CU) AS cu, count(*) AS n, fsum(external_bytes) AS external_bytes
  FROM bill_machine_hours GROUP BY account_id, hour_epoch, cloudspace_id
),
bill_cloudspace_showback AS (
  SELECT c.*, a.CU * ${share("c.CU", "s.cu", "s.n")} AS cu_allocated,
    ${nu("(c.external_bytes - coalesce(m.external_bytes, 0))")} AS own_nic_nu
  FROM bill_cloudspace_hours c
  JOIN bill_account_hours a ON a.account_id = c.account_id AND a.hour_epoch = c.hour_epoch
  JOIN bill_showback_cs_sums s ON s.account_id = c.account_id AND s.hour_epoch = c.hour_epoch
  LEFT JOIN bill_showback_machine_sums m ON m.account_id = c.account_id AND m.hour_epoch = c.hour_epoch AND m.cloudspace_id = c.cloudspace_id
),
bill_machine_showback AS (
  SELECT v.*, coalesce(c.cu_allocated, 0) * ${share("v.CU", "m.cu", "m.n")} AS cu_allocated, ${nu("v.external_bytes")} AS own_nic_nu
  FROM bill_machine_hours v
  LEFT JOIN bill_cloudspace_showback c ON c.account_id = v.account_id AND c.hour_epoch = v.hour_epoch AND c.cloudspace_id = v.cloudspace_id
  JOIN bill_showback_machine_sums m ON m.account_id = v.account_id AND m.hour_epoch = v.hour_epoch AND m.cloudspace_id = v.cloudspace_id
)
`;
}
