// The second peer of `cloudunits billing` in the bench: the same billing as capnpEsBilling.mjs
// (peerBilling.mjs), each file decoded with capnp-ts 0.9.3, the Cap'n Proto package most
// JavaScript users know, through the code its compiler capnpc-ts 0.7.0 generates for the schema
// (capnpTs.mjs, done once by the bench, not timed):
//
//   node test/bench/capnpTsBilling.mjs CODE_DIR TREE START END [ACCOUNT_ID]
import { readFileSync } from "node:fs";
import { capnpTsModules } from "./capnpTs.mjs";
import { billPeer, configuredIops, peerArguments } from "./peerBilling.mjs";

const args = peerArguments();
const {
  capnp,
  schemaModule: { Account },
} = capnpTsModules(args.codeDir);

billPeer(args, (path, bill) => {
  const bytes = readFileSync(path);
  const root = new capnp.Message(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length), false).getRoot(
    Account,
  );
  const spaces = root.getCloudspaces();
  for (let s = 0; s < spaces.getLength(); s++) {
    const cs = spaces.get(s);
    bill.space(cs.getCloudSpaceId(), cs.getState());
    const machines = cs.getMachines();
    for (let i = 0; i < machines.getLength(); i++) {
      const m = machines.get(i);
      bill.machine(m.getId(), m.getType(), m.getVcpus(), m.getMem(), m.getImageName());
      const nics = m.getNetworks();
      for (let n = 0; n < nics.getLength(); n++) {
        const nic = nics.get(n);
        bill.nic(nic.getType(), nic.getTx(), nic.getRx());
      }
      const disks = m.getDisks();
      for (let d = 0; d < disks.getLength(); d++) {
        const disk = disks.get(d);
        let iops = 0;
        if (disk.hasConfiguredIops()) {
          const c = disk.getConfiguredIops();
          iops = configuredIops(c.getTotalIopsSec(), c.getReadIopsSec(), c.getWriteIopsSec());
        }
        bill.disk(disk.getSize(), iops);
      }
      bill.endMachine();
    }
    bill.endSpace();
  }
});
