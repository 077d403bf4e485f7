-- Per account and UTC day in [$start, $end): hours with a file, VM-hours, allocated vCPU-,
-- memory- and disk-hours, CPU used, and external traffic (VMs and gateways).
WITH h AS (
  SELECT account_id, hour_epoch FROM account_hours
  WHERE hour_epoch >= $start AND hour_epoch < $end AND ($account_id IS NULL OR account_id = $account_id)
), m AS (
  SELECT account_id, hour_epoch // 86400 AS day, count(*) AS vm_hours, sum(vcpus) AS vcpu_hours,
         sum(mem_mb) / 1024 AS memory_gib_hours, sum(cpu_minutes) / 60 AS cpu_hours_used
  FROM machines WHERE type = 'vm' AND hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL
), d AS (
  SELECT account_id, hour_epoch // 86400 AS day, sum(size_gb) / 1024 AS disk_tb_hours
  FROM disks WHERE hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL
), n AS (
  SELECT account_id, hour_epoch // 86400 AS day, sum(tx_bytes + rx_bytes) / power(1024, 3) AS external_traffic_gib
  FROM nics WHERE type = 'external' AND hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL
)
SELECT strftime(make_timestamp(day * 86400 * 1000000), '%Y-%m-%d') AS day_utc, account_id, hours_with_file,
       coalesce(vm_hours, 0) AS vm_hours, coalesce(vcpu_hours, 0) AS vcpu_hours,
       coalesce(memory_gib_hours, 0) AS memory_gib_hours, coalesce(disk_tb_hours, 0) AS disk_tb_hours,
       coalesce(cpu_hours_used, 0) AS cpu_hours_used, coalesce(external_traffic_gib, 0) AS external_traffic_gib
FROM (SELECT account_id, hour_epoch // 86400 AS day, count(*) AS hours_with_file FROM h GROUP BY ALL)
LEFT JOIN m USING (account_id, day)
LEFT JOIN d USING (account_id, day)
LEFT JOIN n USING (account_id, day)
ORDER BY day, account_id
