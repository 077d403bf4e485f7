import type { DuckDBAppender, DuckDBConnection } from "@duckdb/node-api";
import type { DecodedAccountHour } from "../capnp/records.js";

/** The machine type of the cloud space's virtual gateway (SPEC 2.3). */
export const GATEWAY_TYPE = "routeros";

const NO_IOPS = {
  totalBytesSec: 0, readBytesSec: 0, writeBytesSec: 0, totalIopsSec: 0, readIopsSec: 0,
  writeIopsSec: 0, totalBytesSecMax: 0, readBytesSecMax: 0, writeBytesSecMax: 0,
  totalIopsSecMax: 0, readIopsSecMax: 0, writeIopsSecMax: 0, sizeIopsSec: 0,
};

/**
 * Appends account-hours to the data tables of `schema.ts`, in the connection's current
 * transaction. The caller owns transactions and the manifest.
 */
export async function appendAccountHours(connection: DuckDBConnection, hours: Iterable<DecodedAccountHour>): Promise<void> {
  const names = ["account_hours", "cloudspaces", "machines", "gateways", "disks", "nics"] as const;
  const a = {} as Record<(typeof names)[number], DuckDBAppender>;
  for (const name of names) a[name] = await connection.createAppender(name);
  try {
    for (const h of hours) {
      const acc = BigInt(h.accountId);
      const hour = BigInt(h.hourEpoch);
      const key = (ap: DuckDBAppender, csId: number) => {
        ap.appendBigInt(acc);
        ap.appendBigInt(hour);
        ap.appendInteger(csId);
      };
      const ah = a.account_hours;
      ah.appendBigInt(acc);
      ah.appendBigInt(hour);
      if (h.rootAccountId === null) ah.appendNull();
      else ah.appendBigInt(BigInt(h.rootAccountId));
      ah.appendInteger(h.account.cloudspaces.length);
      ah.endRow();
      for (const cs of h.account.cloudspaces) {
        const c = a.cloudspaces;
        key(c, cs.cloudSpaceId);
        c.appendInteger(cs.accountId);
        c.appendVarchar(cs.state);
        c.endRow();
        for (const m of cs.machines) {
          const isGateway = m.type === GATEWAY_TYPE;
          if (isGateway) {
            const g = a.gateways;
            key(g, cs.cloudSpaceId);
            g.appendInteger(m.id);
            g.appendInteger(m.vcpus);
            g.appendDouble(m.cpuMinutes);
            g.appendDouble(m.mem);
            g.appendVarchar(m.imageName);
            g.appendVarchar(m.status);
            g.endRow();
          } else {
            const r = a.machines;
            key(r, cs.cloudSpaceId);
            r.appendInteger(m.id);
            r.appendVarchar(m.type);
            r.appendInteger(m.vcpus);
            r.appendDouble(m.cpuMinutes);
            r.appendDouble(m.mem);
            r.appendVarchar(m.imageName);
            r.appendVarchar(m.status);
            r.endRow();
          }
          m.disks.forEach((d, i) => {
            const r = a.disks;
            key(r, cs.cloudSpaceId);
            r.appendInteger(m.id);
            r.appendInteger(i);
            r.appendInteger(d.id);
            r.appendDouble(d.size);
            r.appendDouble(d.iopsRead);
            r.appendDouble(d.iopsWrite);
            r.appendDouble(d.iopsReadMax);
            r.appendDouble(d.iopsWriteMax);
            r.appendBoolean(d.configuredIops !== null);
            const c = d.configuredIops ?? NO_IOPS;
            r.appendDouble(c.totalBytesSec);
            r.appendDouble(c.readBytesSec);
            r.appendDouble(c.writeBytesSec);
            r.appendDouble(c.totalIopsSec);
            r.appendDouble(c.readIopsSec);
            r.appendDouble(c.writeIopsSec);
            r.appendDouble(c.totalBytesSecMax);
            r.appendDouble(c.readBytesSecMax);
            r.appendDouble(c.writeBytesSecMax);
            r.appendDouble(c.totalIopsSecMax);
            r.appendDouble(c.readIopsSecMax);
            r.appendDouble(c.writeIopsSecMax);
            r.appendDouble(c.sizeIopsSec);
            r.endRow();
          });
          m.networks.forEach((n, i) => {
            const r = a.nics;
            key(r, cs.cloudSpaceId);
            r.appendInteger(m.id);
            r.appendBoolean(isGateway);
            r.appendInteger(i);
            r.appendInteger(n.id);
            r.appendVarchar(n.type);
            r.appendDouble(n.tx);
            r.appendDouble(n.rx);
            r.endRow();
          });
        }
      }
    }
    for (const name of names) a[name].flushSync();
  } finally {
    for (const name of names) a[name].closeSync();
  }
}
