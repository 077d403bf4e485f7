import { DuckDBInstance, BIGINT, VARCHAR } from "@duckdb/node-api";
const inst = await DuckDBInstance.create("/tmp/lead-x10.duckdb", { access_mode: "READ_ONLY", memory_limit: process.argv[2] });
const c = await inst.connect();
const W = "hour_epoch >= $start AND hour_epoch < $end AND ($account IS NULL OR account_id = $account)";
const q = `WITH spaces AS (SELECT account_id, hour_epoch, cloudspace_id, max(state) AS state FROM (SELECT * FROM cloudspaces WHERE ${W}) SEMI JOIN (SELECT account_id, hour_epoch FROM account_hours WHERE ${W}) USING (account_id, hour_epoch) GROUP BY ALL), vms AS (SELECT * FROM (SELECT * FROM machine_facts WHERE ${W} AND type = $vmType) SEMI JOIN spaces USING (account_id, hour_epoch, cloudspace_id)) SELECT coalesce(hour_epoch, -1)::DOUBLE, coalesce(part, -1)::DOUBLE, account_id::DOUBLE, count(*)::DOUBLE, sum(mem_mb)::DOUBLE, sum(vcpus)::DOUBLE, sum(external_bytes)::DOUBLE, count(*) FILTER (WHERE mem_mb <> trunc(mem_mb) OR external_bytes <> trunc(external_bytes))::DOUBLE, status, image_name, coalesce(mem_mb, 0)::DOUBLE, coalesce(vcpus, 0)::DOUBLE, coalesce(size_gb, 0)::DOUBLE, coalesce(iops_limit, 0)::DOUBLE, coalesce(external_nics, 0)::DOUBLE FROM (SELECT *, 0::DOUBLE AS part FROM vms) GROUP BY GROUPING SETS ((account_id, hour_epoch, status), (part, account_id, status, image_name, mem_mb, vcpus, size_gb, iops_limit, external_nics))`;
const t = Date.now();
try {
  const mode = process.argv[3];
  const vals = { start: 1803859200n, end: 1806537600n, account: null, vmType: "vm" };
  const types = { start: BIGINT, end: BIGINT, account: BIGINT, vmType: VARCHAR };
  const r = mode === "stream" ? await c.stream(q, vals, types) : await c.runAndReadAll(q, vals, types);
  let n = 0;
  if (mode === "stream") { for (let ch = await r.fetchChunk(); ch && ch.rowCount > 0; ch = await r.fetchChunk()) n += ch.rowCount; } else n = r.getRows().length;
  console.log("rows", n, Date.now() - t, "ms");
} catch (e) { console.log("ERR", String(e).slice(0, 100)); }
