// capnp-es, the generic JS Cap'n Proto library: the baseline of the benchmarks. Its code for
// the schema is generated at bench time into a temporary folder, never committed, and it
// reads every field into the same plain records as our decoder (a fair comparison).
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "../..");
const schema = join(root, "schema/resourcemonitoring.capnp");

/** Compiles the schema with capnp-es into `dir`; returns a function from bytes to an `Account` record. */
export async function capnpEsDecoder(dir) {
  compileCapnpEs(dir);
  return recordsOf(await capnpEsModules(dir));
}

/** Generates capnp-es code for the schema into `dir` (`resourcemonitoring.js`, importing capnp-es by its path). */
export function compileCapnpEs(dir) {
  copyFileSync(schema, join(dir, "resourcemonitoring.capnp"));
  const bin = join(root, "node_modules/capnp-es/dist/compiler/capnpc-js.mjs");
  const r = spawnSync(process.execPath, [bin, join(dir, "resourcemonitoring.capnp"), "-ojs"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`capnp-es compiler failed: ${r.stderr}`);
  const runtime = pathToFileURL(createRequire(join(root, "package.json")).resolve("capnp-es")).href;
  const generated = join(dir, "resourcemonitoring.js");
  writeFileSync(
    generated,
    readFileSync(generated, "utf8").replace('from "capnp-es"', `from ${JSON.stringify(runtime)}`),
  );
}

/** The capnp-es runtime and the code {@link compileCapnpEs} generated into `dir`. */
export async function capnpEsModules(dir) {
  const runtime = pathToFileURL(createRequire(join(root, "package.json")).resolve("capnp-es")).href;
  return {
    capnp: await import(runtime),
    schemaModule: await import(pathToFileURL(join(dir, "resourcemonitoring.js")).href),
  };
}

function recordsOf({ capnp, schemaModule }) {
  const list = (l, read) => {
    const out = [];
    for (let i = 0; i < l.length; i++) out.push(read(l.get(i)));
    return out;
  };
  const iops = (c) => ({
    totalBytesSec: c.totalBytesSec,
    readBytesSec: c.readBytesSec,
    writeBytesSec: c.writeBytesSec,
    totalIopsSec: c.totalIopsSec,
    readIopsSec: c.readIopsSec,
    writeIopsSec: c.writeIopsSec,
    totalBytesSecMax: c.totalBytesSecMax,
    readBytesSecMax: c.readBytesSecMax,
    writeBytesSecMax: c.writeBytesSecMax,
    totalIopsSecMax: c.totalIopsSecMax,
    readIopsSecMax: c.readIopsSecMax,
    writeIopsSecMax: c.writeIopsSecMax,
    sizeIopsSec: c.sizeIopsSec,
  });
  const disk = (d) => ({
    id: d.id,
    size: d.size,
    iopsRead: d.iopsRead,
    iopsWrite: d.iopsWrite,
    iopsReadMax: d.iopsReadMax,
    iopsWriteMax: d.iopsWriteMax,
    configuredIops: d._hasConfiguredIops() ? iops(d.configuredIops) : null,
  });
  const nic = (n) => ({ id: n.id, type: n.type, tx: n.tx, rx: n.rx });
  const machine = (m) => ({
    id: m.id,
    type: m.type,
    vcpus: m.vcpus,
    cpuMinutes: m.cpuMinutes,
    mem: m.mem,
    networks: list(m.networks, nic),
    disks: list(m.disks, disk),
    imageName: m.imageName,
    status: m.status,
  });
  const space = (c) => ({
    cloudSpaceId: c.cloudSpaceId,
    accountId: c.accountId,
    machines: list(c.machines, machine),
    state: c.state,
  });
  return (bytes) => {
    const account = new capnp.Message(bytes, false).getRoot(schemaModule.Account);
    return { accountId: account.accountId, cloudspaces: list(account.cloudspaces, space) };
  };
}
