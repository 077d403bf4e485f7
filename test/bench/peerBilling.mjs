// What the billing bench's peers share (capnpEsBilling.mjs, capnpTsBilling.mjs): the arguments,
// the tree walk, the docs/formulas.md units with the published constants, compensated sums
// (Neumaier, as DuckDB's fsum is), and the figures printed in the shape `cloudunits billing
// --format json` does. Each peer reads the fields with its own library and hands them over as
// plain numbers and strings, so the two peers do the same arithmetic and differ only in the
// decoding.
import { readdirSync } from "node:fs";
import { join } from "node:path";

const U = { mbPerGb: 1024, gbPerCu: 4, vcpusPerCu: 2, gbPerSu: 1024, iopsPerTu: 400, bytesPerNu: 1024 ** 4 };
const cuOf = (mem, vcpus) => Math.max(mem / U.mbPerGb / U.gbPerCu, vcpus / U.vcpusPerCu);

/** A compensated sum. */
class Sum {
  s = 0;
  c = 0;
  add(x) {
    const t = this.s + x;
    this.c += Math.abs(this.s) >= Math.abs(x) ? this.s - t + x : x - t + this.s;
    this.s = t;
  }
  get value() {
    return this.s + this.c;
  }
}
const UNITS = ["CU", "SU", "TU", "NU", "VCU", "MU", "WU", "PIU"];
const sums = () => Object.fromEntries([...UNITS, "mem", "vcpus", "bytes"].map((k) => [k, new Sum()]));
const values = (s, keys) => Object.fromEntries(keys.map((k) => [k, s[k].value]));

/** `CODE_DIR TREE START END [ACCOUNT_ID]` of the command line. */
export function peerArguments() {
  const [codeDir, tree, startArg, endArg, accountArg] = process.argv.slice(2);
  return {
    codeDir,
    tree,
    start: Number(startArg),
    end: Number(endArg),
    only: accountArg === undefined ? undefined : Number(accountArg),
  };
}

/** Every file of the tree with its account and hour (`ACCOUNT/YYYY/M/D/H/file`). */
function files(tree) {
  const out = [];
  const walk = (d, parts) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), [...parts, e.name]);
      else if (parts.length === 5) {
        const [a, y, m, day, h] = parts.map(Number);
        out.push({ path: join(d, e.name), accountId: a, hourEpoch: Date.UTC(y, m - 1, day, h) / 1000 });
      }
    }
  };
  walk(tree, []);
  return out;
}

/**
 * The billing a peer does: its files of the period, in turn, read by `readFile(path, bill)`,
 * which calls `bill.space(cloudSpaceId, state)` for each cloud space, then for each of its
 * machines `bill.machine(id, type, vcpus, mem, imageName)`, then for each of that machine's
 * NICs `bill.nic(type, tx, rx)` and disks `bill.disk(size, iops)` (iops: the configured
 * IOPS, 0 when none), then `bill.endMachine()`; `bill.endSpace()` ends the cloud space.
 * Prints the figures and returns.
 */
export function billPeer({ tree, start, end, only }, readFile) {
  const envHours = new Map(); // hour → { mem, vcpus }
  const env = sums();
  const account = sums();
  const spaces = new Map(); // id → { sums, machines: Map(id → sums) }
  let space;
  let hour;
  let gatewayExternal = 0;
  let spaceDeployed = false;
  let machine;
  let hourMem = 0;
  let hourVcpus = 0;
  const bill = {
    space(cloudSpaceId, state) {
      space = spaces.get(cloudSpaceId) ?? { sums: sums(), machines: new Map() };
      spaces.set(cloudSpaceId, space);
      hour = { mem: 0, vcpus: 0 };
      gatewayExternal = 0;
      spaceDeployed = state === "DEPLOYED";
    },
    machine(id, type, vcpus, mem, imageName) {
      machine = { id, type, vcpus, mem, imageName, external: 0, bytes: 0, size: 0, iops: 0 };
    },
    nic(type, tx, rx) {
      if (type !== "external") return;
      machine.external++;
      machine.bytes += tx + rx;
    },
    disk(size, iops) {
      machine.size += size;
      machine.iops += iops;
    },
    endMachine() {
      const m = machine;
      if (m.type === "routeros") {
        gatewayExternal += m.external;
        for (const s of [space.sums, account, env]) s.bytes.add(m.bytes);
        return;
      }
      if (m.type !== "vm") return;
      const cu = cuOf(m.mem, m.vcpus);
      const unit = {
        CU: cu,
        SU: m.size / U.gbPerSu,
        TU: m.iops / U.iopsPerTu,
        VCU: m.vcpus,
        MU: m.mem / U.mbPerGb,
        WU: /windows/i.test(m.imageName) ? cu : 0,
        PIU: m.external,
      };
      const kept = space.machines.get(m.id) ?? sums();
      space.machines.set(m.id, kept);
      for (const [k, v] of Object.entries(unit)) {
        kept[k].add(v);
        if (k !== "CU") for (const s of [space.sums, account, env]) s[k].add(v);
      }
      for (const s of [space.sums, account, env]) s.bytes.add(m.bytes);
      hour.mem += m.mem;
      hour.vcpus += m.vcpus;
    },
    endSpace() {
      const piu = spaceDeployed && gatewayExternal > 0 ? 1 : 0;
      for (const s of [space.sums, account, env]) s.PIU.add(piu);
      space.sums.CU.add(cuOf(hour.mem, hour.vcpus));
      hourMem += hour.mem;
      hourVcpus += hour.vcpus;
    },
  };
  for (const file of files(tree)) {
    if (file.hourEpoch < start || file.hourEpoch >= end) continue;
    if (only !== undefined && file.accountId !== only) continue;
    hourMem = 0;
    hourVcpus = 0;
    readFile(file.path, bill);
    account.CU.add(cuOf(hourMem, hourVcpus));
    const e = envHours.get(file.hourEpoch) ?? { mem: 0, vcpus: 0 };
    envHours.set(file.hourEpoch, { mem: e.mem + hourMem, vcpus: e.vcpus + hourVcpus });
  }
  for (const { mem, vcpus } of envHours.values()) env.CU.add(cuOf(mem, vcpus));
  const withNu = (s, keys) => ({ ...values(s, keys), NU: s.bytes.value / U.bytesPerNu });
  const order = (o, keys) => Object.fromEntries(keys.map((k) => [k, o[k]]));

  if (only === undefined) {
    process.stdout.write(
      `${JSON.stringify({ consumption: order(withNu(env, ["CU", "SU", "TU"]), ["CU", "SU", "TU", "NU"]) })}\n`,
    );
  } else {
    const cloudspaces = {};
    for (const [id, s] of spaces) {
      const machines = {};
      for (const [mid, m] of s.machines)
        machines[mid] = { id: mid, consumption: values(m, ["CU", "SU", "TU", "VCU", "MU", "WU", "PIU"]) };
      cloudspaces[id] = { id, consumption: order(withNu(s.sums, UNITS), UNITS), machines };
    }
    process.stdout.write(
      `${JSON.stringify({ account: { id: only, consumption: order(withNu(account, UNITS), UNITS), cloudspaces } })}\n`,
    );
  }
}

/** The configured IOPS of a disk (`docs/formulas.md`): the total, else read + write, else 0. */
export const configuredIops = (total, read, write) => (total > 0 ? total : read + write > 0 ? read + write : 0);
