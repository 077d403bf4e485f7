import type { DecodedAccountHour } from "../../src/capnp/records.js";
import { makeNames, parsePrices, type Names, type PriceList } from "../../src/index.js";
import { readZip } from "./readZip.js";
import { accountHour, disk, gateway, HOUR, nic, OCT_1, vm } from "./warehouse.js";

/** One account of the statement fixture: its id, name, and its cloud spaces' and machines' ids and names. */
export interface FixtureAccount {
  id: number;
  name: string;
  cloudspaces: { id: number; name: string }[];
  machines: { id: number; name: string }[];
}

const NAMES = [
  "Lumière Studios SARL",
  "Ørsted Nordic A/S",
  "Café Müller & Söhne GmbH",
  "Zürich Datenwerk AG",
  "Ñandú Logística S.L.",
];
const TIB = 1024 ** 4;

/**
 * Test helper: five accounts (7101–7105) with accented names, two cloud spaces each (ids
 * 71011, 71012, …) with named machines (a Windows one, disks, public IPs, a deployed gateway
 * with traffic), every hour of October 2026 but three of 7102's and one of 7104's, and a EUR
 * price list pricing every unit with an override for 7103. What a statement for one account
 * is tested against: the other four's ids and names must not be in it.
 */
export function statementFixture(): {
  hours: DecodedAccountHour[];
  names: Names;
  prices: PriceList;
  accounts: FixtureAccount[];
} {
  const accounts: FixtureAccount[] = NAMES.map((name, a) => {
    const id = 7101 + a;
    return {
      id,
      name,
      cloudspaces: [1, 2].map((k) => ({
        id: id * 10 + k,
        name: `${name.split(" ")[0]} ${k === 1 ? "production" : "staging"}`,
      })),
      machines: [1, 2, 3].map((k) => ({ id: id * 100 + k, name: `${name.split(" ")[0]!.toLowerCase()}-vm-${k}` })),
    };
  });
  const missing = new Map([
    [7102, new Set([5, 6, 7])],
    [7104, new Set([30])],
  ]);
  const hours: DecodedAccountHour[] = [];
  for (let h = 0; h < 744; h++) {
    for (const [a, account] of accounts.entries()) {
      if (missing.get(account.id)?.has(h)) continue;
      const [m1, m2, m3] = account.machines;
      hours.push(
        accountHour(account.id, OCT_1 + h * HOUR, {
          [account.cloudspaces[0]!.id]: [
            gateway([nic("external", TIB / (64 + a), 0)]),
            vm(m1!.id, { mem: 16384 + 1024 * a, vcpus: 1, disks: [disk(1, 200 + 10 * a, { total: 1200 })] }),
            vm(m2!.id, {
              mem: 4096,
              vcpus: a % 2 === 1 ? 11 : 3,
              imageName: "windows-server-2022",
              networks: [nic("external", TIB / 512, TIB / 1024)],
            }),
          ],
          [account.cloudspaces[1]!.id]: [vm(m3!.id, { mem: 2048 * (a + 1), vcpus: 4, disks: [disk(2, 50)] })],
        }),
      );
    }
  }
  const names = makeNames(
    accounts.flatMap((a) => [
      { kind: "account", id: a.id, name: a.name },
      ...a.cloudspaces.map((c) => ({ kind: "cloudspace", id: c.id, name: c.name })),
      ...a.machines.map((m) => ({ kind: "machine", id: m.id, name: m.name })),
    ]),
  );
  const prices = parsePrices(
    {
      currency: "EUR",
      prices: {
        CU: { perMonth: 18.5 },
        SU: { perMonth: 41.3 },
        TU: "0.0071",
        NU: 9.9,
        WU: "0.0213",
        PIU: { perMonth: 3.1 },
      },
      accounts: { 7103: { CU: { perMonth: 16.65 } } },
    },
    "prices.yaml",
  );
  return { hours, names, prices, accounts };
}

/** A text part of a statement: its name (a zip entry, a page) and its text. */
export interface StatementPart {
  part: string;
  text: string;
}

/** The XML parts of an xlsx (or any zip) as text, entities decoded, Unicode NFC. */
export async function zipParts(file: string): Promise<StatementPart[]> {
  const entries = await readZip(file);
  return [...entries].map(([part, bytes]) => ({ part, text: decodeXml(bytes.toString("utf8")) }));
}

function decodeXml(text: string): string {
  return text
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
    .replace(/&#(\d+);/g, (_, dec: string) => String.fromCodePoint(Number(dec)))
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&apos;", "'")
    .replaceAll("&amp;", "&")
    .normalize("NFC");
}

/** An id as a whole number: not part of a longer number, nor the whole part of a decimal. */
function idPattern(id: number): RegExp {
  return new RegExp(`(?<![\\d.,])${id}(?![\\d]|[.,]\\d)`);
}

/**
 * What of `others` a statement's parts hold: every other account's id, its cloud spaces'
 * ids (as whole numbers), and every name of its (account, cloud spaces, machines; case and
 * accents as written, NFC). Returns one finding per hit, `part: what`; [] when isolated.
 */
export function leaksOf(parts: readonly StatementPart[], others: readonly FixtureAccount[]): string[] {
  const found: string[] = [];
  for (const { part, text } of parts) {
    const lower = text.normalize("NFC").toLowerCase();
    for (const other of others) {
      for (const id of [other.id, ...other.cloudspaces.map((c) => c.id)]) {
        if (idPattern(id).test(text)) found.push(`${part}: id ${id} of account ${other.id}`);
      }
      for (const name of [other.name, ...other.cloudspaces.map((c) => c.name), ...other.machines.map((m) => m.name)]) {
        if (lower.includes(name.normalize("NFC").toLowerCase()))
          found.push(`${part}: name "${name}" of account ${other.id}`);
      }
    }
  }
  return found;
}
