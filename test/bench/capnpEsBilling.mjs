// The peer of `cloudunits billing` in the bench: a whole process that walks a tree of
// consumption files, decodes each with capnp-es (the generic JavaScript Cap'n Proto library)
// and sums the docs/formulas.md units with the published constants, in plain JavaScript. It prints
// the figures in the shape `cloudunits billing --format json` does, so the bench checks
// that both computed the same numbers:
//
//   node test/bench/capnpEsBilling.mjs CODE_DIR TREE START END [ACCOUNT_ID]
//
// CODE_DIR holds the capnp-es code of the schema (compileCapnpEs of capnpEs.mjs, done once by
// the bench, not timed).
// Without ACCOUNT_ID: the environment's CU, SU, TU, NU; with it, the account with every unit,
// its cloud spaces and machines. Sums are compensated (Neumaier), as DuckDB's fsum is.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { capnpEsModules } from "./capnpEs.mjs";

const [codeDir, tree, startArg, endArg, accountArg] = process.argv.slice(2);
const start = Number(startArg);
const end = Number(endArg);
const only = accountArg === undefined ? undefined : Number(accountArg);

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

const {
  capnp,
  schemaModule: { Account },
} = await capnpEsModules(codeDir);

/** Every file of the tree with its account and hour (`ACCOUNT/YYYY/M/D/H/file`). */
function files() {
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

const envHours = new Map(); // hour → { mem, vcpus }
const env = sums();
const account = sums();
const spaces = new Map(); // id → { sums, machines: Map(id → sums) }
for (const file of files()) {
  if (file.hourEpoch < start || file.hourEpoch >= end) continue;
  if (only !== undefined && file.accountId !== only) continue;
  const root = new capnp.Message(new Uint8Array(readFileSync(file.path)), false).getRoot(Account);
  let hourMem = 0;
  let hourVcpus = 0;
  const spacesOfHour = root.cloudspaces;
  for (let s = 0; s < spacesOfHour.length; s++) {
    const cs = spacesOfHour.get(s);
    const space = spaces.get(cs.cloudSpaceId) ?? { sums: sums(), machines: new Map(), hours: [] };
    spaces.set(cs.cloudSpaceId, space);
    const hour = { mem: 0, vcpus: 0 };
    let gatewayExternal = 0;
    const machines = cs.machines;
    for (let i = 0; i < machines.length; i++) {
      const m = machines.get(i);
      const nics = m.networks;
      let external = 0;
      let bytes = 0;
      for (let n = 0; n < nics.length; n++) {
        const nic = nics.get(n);
        if (nic.type !== "external") continue;
        external++;
        bytes += nic.tx + nic.rx;
      }
      if (m.type === "routeros") {
        gatewayExternal += external;
        for (const s of [space.sums, account, env]) s.bytes.add(bytes);
        continue;
      }
      if (m.type !== "vm") continue;
      let size = 0;
      let iops = 0;
      const disks = m.disks;
      for (let d = 0; d < disks.length; d++) {
        const disk = disks.get(d);
        size += disk.size;
        if (!disk._hasConfiguredIops()) continue;
        const c = disk.configuredIops;
        iops +=
          c.totalIopsSec > 0 ? c.totalIopsSec : c.readIopsSec + c.writeIopsSec > 0 ? c.readIopsSec + c.writeIopsSec : 0;
      }
      const cu = cuOf(m.mem, m.vcpus);
      const unit = {
        CU: cu,
        SU: size / U.gbPerSu,
        TU: iops / U.iopsPerTu,
        VCU: m.vcpus,
        MU: m.mem / U.mbPerGb,
        WU: /windows/i.test(m.imageName) ? cu : 0,
        PIU: external,
      };
      const machine = space.machines.get(m.id) ?? sums();
      space.machines.set(m.id, machine);
      for (const [k, v] of Object.entries(unit)) {
        machine[k].add(v);
        if (k !== "CU") for (const s of [space.sums, account, env]) s[k].add(v);
      }
      for (const s of [space.sums, account, env]) s.bytes.add(bytes);
      hour.mem += m.mem;
      hour.vcpus += m.vcpus;
    }
    const piu = cs.state === "DEPLOYED" && gatewayExternal > 0 ? 1 : 0;
    for (const s of [space.sums, account, env]) s.PIU.add(piu);
    space.sums.CU.add(cuOf(hour.mem, hour.vcpus));
    hourMem += hour.mem;
    hourVcpus += hour.vcpus;
  }
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
  for (const [id, space] of spaces) {
    const machines = {};
    for (const [mid, m] of space.machines)
      machines[mid] = { id: mid, consumption: values(m, ["CU", "SU", "TU", "VCU", "MU", "WU", "PIU"]) };
    cloudspaces[id] = { id, consumption: order(withNu(space.sums, UNITS), UNITS), machines };
  }
  process.stdout.write(
    `${JSON.stringify({ account: { id: only, consumption: order(withNu(account, UNITS), UNITS), cloudspaces } })}\n`,
  );
}
