-- The 50 VMs that used the most CPU in [$start, $end), with what they were allocated:
-- memory, disk and the traffic of their external NICs.
WITH m AS (
  SELECT account_id, cloudspace_id, machine_id,
         arg_max(image_name, hour_epoch) AS image_name,
         count(*)                        AS machine_hours,
         sum(cpu_minutes) / 60           AS cpu_hours_used,
         sum(vcpus)                      AS vcpu_hours,
         sum(mem_mb) / 1024              AS memory_gib_hours
  FROM machines
  WHERE type = 'vm' AND hour_epoch >= $start AND hour_epoch < $end
    AND ($account_id IS NULL OR account_id = $account_id)
  GROUP BY ALL
), d AS (
  SELECT account_id, cloudspace_id, machine_id, sum(size_gb) AS disk_gb_hours
  FROM disks WHERE hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL
), n AS (
  SELECT account_id, cloudspace_id, machine_id, sum(tx_bytes + rx_bytes) / power(1024, 3) AS external_traffic_gib
  FROM nics WHERE NOT is_gateway AND type = 'external' AND hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL
)
SELECT m.account_id, m.cloudspace_id, m.machine_id, m.image_name, m.machine_hours, m.cpu_hours_used,
       m.vcpu_hours, m.memory_gib_hours, coalesce(d.disk_gb_hours, 0) / 1024 AS disk_tb_hours,
       coalesce(n.external_traffic_gib, 0) AS external_traffic_gib
FROM m
LEFT JOIN d USING (account_id, cloudspace_id, machine_id)
LEFT JOIN n USING (account_id, cloudspace_id, machine_id)
ORDER BY m.cpu_hours_used DESC, m.account_id, m.machine_id
LIMIT 50
