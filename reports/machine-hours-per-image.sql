-- Machine-hours per image: how many hours VMs ran (or were allocated) per image name, with
-- their allocated vCPU- and memory-hours, in [$start, $end), optionally for one account.
SELECT
  image_name,
  count(*)                                      AS machine_hours,
  count(DISTINCT (account_id, machine_id))      AS machines,
  sum(vcpus)                                    AS vcpu_hours,
  sum(mem_mb) / 1024                            AS memory_gib_hours,
  count(*) FILTER (WHERE status = 'RUNNING')    AS running_hours
FROM machines
WHERE type = 'vm'
  AND hour_epoch >= $start AND hour_epoch < $end
  AND ($account_id IS NULL OR account_id = $account_id)
GROUP BY image_name
ORDER BY machine_hours DESC, image_name
