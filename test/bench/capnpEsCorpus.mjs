// The corpus a third party would bill: the bench's week of files written again by capnp-es (each
// file read with capnp-es and its records built anew in a capnp-es message), so that the
// layout is capnp-es's (its segment sizes, its order of objects), not our generator's. Made
// once into the bench's temp folder, beside the week it is made from.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { capnpEsDecoder, capnpEsModules } from "./capnpEs.mjs";

/**
 * The capnp-es reader and writer of `Account` records (records as capnpEs.mjs reads them),
 * its code compiled into `codeDir`: `decode(bytes)` and `encode(record)` (an ArrayBuffer).
 */
export async function capnpEsCodec(codeDir) {
  const decode = await capnpEsDecoder(codeDir);
  const {
    capnp,
    schemaModule: { Account },
  } = await capnpEsModules(codeDir);
  return { decode, encode: (record) => encode(capnp, Account, record) };
}

/** `weekDir` written again by `codec` (capnpEsCodec) into `dir`, once: kept when it exists. */
export function capnpEsCorpus(weekDir, dir, codec) {
  if (existsSync(dir)) return dir;
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const walk = (from, to) => {
    mkdirSync(to, { recursive: true });
    for (const e of readdirSync(from, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(from, e.name), join(to, e.name));
      else
        writeFileSync(
          join(to, e.name),
          new Uint8Array(codec.encode(codec.decode(new Uint8Array(readFileSync(join(from, e.name)))))),
        );
    }
  };
  walk(weekDir, partial);
  renameSync(partial, dir);
  return dir;
}

/** An `Account` record (as capnpEsDecoder makes them) as a capnp-es message: scalars and texts set in field order, lists initialised. */
function encode(capnp, Account, record) {
  const message = new capnp.Message();
  const account = message.initRoot(Account);
  account.accountId = record.accountId;
  const spaces = account._initCloudspaces(record.cloudspaces.length);
  record.cloudspaces.forEach(({ cloudSpaceId, accountId, machines: ms, state }, i) => {
    const space = spaces.get(i);
    Object.assign(space, { cloudSpaceId, accountId });
    const machines = space._initMachines(ms.length);
    ms.forEach(({ networks, disks: ds, imageName, status, ...fields }, j) => {
      const machine = Object.assign(machines.get(j), fields);
      const nics = machine._initNetworks(networks.length);
      networks.forEach((n, k) => Object.assign(nics.get(k), n));
      const disks = machine._initDisks(ds.length);
      ds.forEach(({ configuredIops, ...d }, k) => {
        const disk = Object.assign(disks.get(k), d);
        if (configuredIops !== null) Object.assign(disk._initConfiguredIops(), configuredIops);
      });
      Object.assign(machine, { imageName, status });
    });
    space.state = state;
  });
  return message.toArrayBuffer();
}
