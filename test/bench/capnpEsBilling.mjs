// The peer of `cloudunits billing` in the bench: a whole process that walks a tree of
// consumption files, decodes each with capnp-es (the generic JavaScript Cap'n Proto library)
// and sums the docs/formulas.md units with the published constants, in plain JavaScript
// (peerBilling.mjs, shared with the capnp-ts peer). It prints the figures in the shape
// `cloudunits billing --format json` does, so the bench checks that both computed the same numbers:
//
//   node test/bench/capnpEsBilling.mjs CODE_DIR TREE START END [ACCOUNT_ID]
//
// CODE_DIR holds the capnp-es code of the schema (compileCapnpEs of capnpEs.mjs, done once by
// the bench, not timed).
// Without ACCOUNT_ID: the environment's CU, SU, TU, NU; with it, the account with every unit,
// its cloud spaces and machines.
import { readFileSync } from "node:fs";
import { capnpEsModules } from "./capnpEs.mjs";
import { billPeer, configuredIops, peerArguments } from "./peerBilling.mjs";

const args = peerArguments();
const {
  capnp,
  schemaModule: { Account },
} = await capnpEsModules(args.codeDir);

billPeer(args, (path, bill) => {
  const root = new capnp.Message(new Uint8Array(readFileSync(path)), false).getRoot(Account);
  const spaces = root.cloudspaces;
  for (let s = 0; s < spaces.length; s++) {
    const cs = spaces.get(s);
    bill.space(cs.cloudSpaceId, cs.state);
    const machines = cs.machines;
    for (let i = 0; i < machines.length; i++) {
      const m = machines.get(i);
      bill.machine(m.id, m.type, m.vcpus, m.mem, m.imageName);
      const nics = m.networks;
      for (let n = 0; n < nics.length; n++) {
        const nic = nics.get(n);
        bill.nic(nic.type, nic.tx, nic.rx);
      }
      const disks = m.disks;
      for (let d = 0; d < disks.length; d++) {
        const disk = disks.get(d);
        let iops = 0;
        if (disk._hasConfiguredIops()) {
          const c = disk.configuredIops;
          iops = configuredIops(c.totalIopsSec, c.readIopsSec, c.writeIopsSec);
        }
        bill.disk(disk.size, iops);
      }
      bill.endMachine();
    }
    bill.endSpace();
  }
});
