/**
 * The platform's data operations over a generated data set, for the loopback test service:
 * `accounts/list`, `cloudspaces/list`, `getConsumption` (zips made on the fly, the `end` hour
 * included, as the platform does) and `billing/calculate`, whose figures are computed here
 * from the generator's records in plain JavaScript (docs/formulas.md read independently, never our
 * billing code), with switchable quirks of a real platform.
 */
import type http from "node:http";
import yazl from "yazl";
import type { DecodedAccountHour } from "../../src/capnp/records.js";
import { encodeAccount } from "../../src/generate/encodeAccount.js";
import { hourPath } from "../../src/generate/hourPath.js";
import { platform, type Handler, type SeenRequest } from "./fakeService.js";

export const ACCOUNTS_LIST = "/restmachine/cloudapi/accounts/list";
export const CLOUDSPACES_LIST = "/restmachine/cloudapi/cloudspaces/list";
export const CALCULATE = "/restmachine/cloudapi/billing/calculate";

/** How this platform differs from our reading of the contract. */
export interface PlatformQuirks {
  /** billing/calculate counts the hour `end` too (period [start, end]). */
  endInclusive?: boolean;
  /** CU of a cloud space, account and environment is the sum of its VMs' CU. */
  cuSum?: boolean;
  /**
   * NIC `tx`/`rx` are packets per second (as the public collectors write them), each packet
   * billed as this many bytes: NU = Σ (tx + rx) × 3600 × packetBytes / 1024⁴.
   */
  packetBytes?: number;
  /** This machine is left out of the account's answer (its cloud space's figures keep it). */
  missingMachine?: { cloudspaceId: number; machineId: number };
}

export interface FakePlatformOptions {
  /** The generator's records: what the platform holds. */
  hours: DecodedAccountHour[];
  quirks?: PlatformQuirks;
  /** getConsumption of these accounts answers 500 (after the retries, a failure). */
  failingAccounts?: number[];
  /** Called on each getConsumption before it is answered; may hold the answer back. */
  beforeConsumption?: (request: SeenRequest) => unknown;
  /** What getConsumption serves at the time of the request (a platform that publishes hours late, or rewrites one). Default: `hours`. */
  published?: () => DecodedAccountHour[];
  /** Replaces the accounts/list answer (e.g. a shape cloudunits does not know). */
  accountsListBody?: unknown;
}

/** The display names the lists give. */
export const accountName = (id: number) => `Account ${id}`;
export const cloudspaceName = (id: number) => `Space ${id} — ünïcode`;

function json(response: http.ServerResponse, body: unknown): void {
  const text = JSON.stringify(body);
  response
    .writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) })
    .end(text);
}

/** The records as a zip archive, at the platform's paths. */
export function zipOf(hours: DecodedAccountHour[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const h of hours)
    zip.addBuffer(Buffer.from(encodeAccount(h.account)), `${hourPath(h.accountId, h.hourEpoch)}/account_capnp.bin`, {
      mtime: new Date(h.hourEpoch * 1000),
    });
  zip.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
}

type Figures = { CU: number; SU: number; TU: number; NU: number };
const zero = (): Figures => ({ CU: 0, SU: 0, TU: 0, NU: 0 });
const TB = 1024 ** 4;

/** One VM's figures in one hour (docs/formulas.md table). */
function vmHour(m: DecodedAccountHour["account"]["cloudspaces"][number]["machines"][number]) {
  const iopsLimit = (d: (typeof m.disks)[number]) => {
    const c = d.configuredIops;
    if (c === null) return 0;
    if (c.totalIopsSec > 0) return c.totalIopsSec;
    return c.readIopsSec + c.writeIopsSec > 0 ? c.readIopsSec + c.writeIopsSec : 0;
  };
  return {
    memMb: m.mem,
    vcpus: m.vcpus,
    CU: Math.max(m.mem / 1024 / 4, m.vcpus / 2),
    SU: m.disks.reduce((s, d) => s + d.size, 0) / 1024,
    TU: m.disks.reduce((s, d) => s + iopsLimit(d), 0) / 400,
  };
}

/** The platform's billing/calculate answer, from the records of the hours it counts. */
export function platformCalculate(
  all: DecodedAccountHour[],
  start: number,
  end: number,
  accountId: number | undefined,
  quirks: PlatformQuirks = {},
) {
  const inPeriod = (t: number) => t >= start && (quirks.endInclusive ? t <= end : t < end);
  const hours = all.filter((h) => inPeriod(h.hourEpoch) && (accountId === undefined || h.accountId === accountId));
  /** Per hour and level: its memory, vcpus and VMs' CU, for the level's CU that hour. */
  const levelCu = (memMb: number, vcpus: number, vmCu: number) =>
    quirks.cuSum ? vmCu : Math.max(memMb / 1024 / 4, vcpus / 2);
  const environment = zero();
  const envByHour = new Map<number, { memMb: number; vcpus: number; vmCu: number }>();
  const account = zero();
  const spaces = new Map<number, { figures: Figures; machines: Map<number, Omit<Figures, "NU">> }>();
  for (const h of hours) {
    const accountHour = { memMb: 0, vcpus: 0, vmCu: 0 };
    for (const cs of h.account.cloudspaces) {
      const space = spaces.get(cs.cloudSpaceId) ?? { figures: zero(), machines: new Map() };
      spaces.set(cs.cloudSpaceId, space);
      const spaceHour = { memMb: 0, vcpus: 0, vmCu: 0 };
      for (const m of cs.machines) {
        const nu =
          (m.networks.filter((n) => n.type === "external").reduce((s, n) => s + n.tx + n.rx, 0) *
            (quirks.packetBytes ? 3600 * quirks.packetBytes : 1)) /
          TB;
        space.figures.NU += nu;
        account.NU += nu;
        environment.NU += nu;
        if (m.type !== "vm") continue;
        const f = vmHour(m);
        const machine = space.machines.get(m.id) ?? { CU: 0, SU: 0, TU: 0 };
        space.machines.set(m.id, { CU: machine.CU + f.CU, SU: machine.SU + f.SU, TU: machine.TU + f.TU });
        for (const level of [space.figures, account, environment]) {
          level.SU += f.SU;
          level.TU += f.TU;
        }
        for (const sums of [spaceHour, accountHour]) {
          sums.memMb += f.memMb;
          sums.vcpus += f.vcpus;
          sums.vmCu += f.CU;
        }
      }
      space.figures.CU += levelCu(spaceHour.memMb, spaceHour.vcpus, spaceHour.vmCu);
    }
    account.CU += levelCu(accountHour.memMb, accountHour.vcpus, accountHour.vmCu);
    const env = envByHour.get(h.hourEpoch) ?? { memMb: 0, vcpus: 0, vmCu: 0 };
    envByHour.set(h.hourEpoch, {
      memMb: env.memMb + accountHour.memMb,
      vcpus: env.vcpus + accountHour.vcpus,
      vmCu: env.vmCu + accountHour.vmCu,
    });
  }
  for (const e of envByHour.values()) environment.CU += levelCu(e.memMb, e.vcpus, e.vmCu);
  if (accountId === undefined) return { consumption: environment };
  const cloudspaces: Record<string, unknown> = {};
  for (const [id, space] of spaces) {
    const machines: Record<string, unknown> = {};
    for (const [machineId, figures] of space.machines) {
      if (quirks.missingMachine?.cloudspaceId === id && quirks.missingMachine.machineId === machineId) continue;
      machines[String(machineId)] = { id: machineId, name: `vm-${machineId}`, consumption: figures };
    }
    cloudspaces[String(id)] = { id, name: cloudspaceName(id), machines, consumption: space.figures };
  }
  return { account: { id: accountId, name: accountName(accountId), cloudspaces, consumption: account } };
}

/** The accounts and cloud spaces of the records, as the lists give them. */
export function listsOf(hours: DecodedAccountHour[]) {
  const accounts = [...new Set(hours.map((h) => h.accountId))].sort((a, b) => a - b);
  const spaces = new Map<number, number>();
  for (const h of hours) for (const cs of h.account.cloudspaces) spaces.set(cs.cloudSpaceId, h.accountId);
  return {
    accounts: accounts.map((id) => ({ id, name: accountName(id), status: "CONFIRMED" })),
    cloudspaces: [...spaces]
      .sort((a, b) => a[0] - b[0])
      .map(([id, accountId]) => ({ id, name: cloudspaceName(id), accountId, status: "DEPLOYED" })),
  };
}

/** The loopback platform's handler: login routes of fakeService plus the data operations. */
export function fakePlatform(options: FakePlatformOptions): Handler {
  const lists = listsOf(options.hours);
  const consumption: Handler = async (request, response) => {
    await options.beforeConsumption?.(request);
    const accountId = Number(request.query.get("accountId"));
    if (options.failingAccounts?.includes(accountId)) {
      response.writeHead(500, { "content-type": "text/plain" }).end(`internal error for account ${accountId}`);
      return;
    }
    const start = Number(request.query.get("start"));
    const end = Number(request.query.get("end"));
    const bytes = await zipOf(
      (options.published?.() ?? options.hours).filter(
        (h) => h.accountId === accountId && h.hourEpoch >= start && h.hourEpoch <= end,
      ),
    );
    response
      .writeHead(200, { "content-type": "application/octet-stream", "content-length": String(bytes.length) })
      .end(bytes);
  };
  return platform(consumption, {
    [ACCOUNTS_LIST]: (request, response) =>
      request.method === "POST"
        ? json(response, options.accountsListBody ?? lists.accounts)
        : response.writeHead(405).end(),
    [CLOUDSPACES_LIST]: (request, response) =>
      request.method === "POST" ? json(response, lists.cloudspaces) : response.writeHead(405).end(),
    [CALCULATE]: (request, response) => {
      if (request.method !== "GET") return response.writeHead(405).end();
      const account = request.query.get("accountId");
      json(
        response,
        platformCalculate(
          options.hours,
          Number(request.query.get("start")),
          Number(request.query.get("end")),
          account === null ? undefined : Number(account),
          options.quirks,
        ),
      );
    },
  });
}
