// October 2026 as the month-end tests issue it (test/invoices/monthEnd.test.ts, customers.test.ts):
// generated accounts of one cloud space and two machines, the German issuer of a statement config
// that Peppol's German rules accept, and one price list in EUR.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, type CliRun } from "./runCli.js";

/** The morning the month is issued: 2 November 2026, 08:00 UTC. */
export const MONTH_END = "2026-11-02T08:00:00Z";

/** The test clock of a CLI run (`CLOUDUNITS_TEST_NOW`). */
export const at = (now: string): Record<string, string> => ({ CLOUDUNITS_TEST_NOW: now });

/** A statement config's issuer (standard rated 19 %, with the contact and IBAN German parties need) and its numbering, before `customers:`. */
export const ISSUER_YAML =
  "issuer: { legalName: Nordlicht Cloud Services GmbH, address: [Hafenstraße 12, 20457 Hamburg], country: DE, vatId: DE123456789,\n" +
  "  peppolId: '9930:DE123456789', tax: { category: S, ratePercent: 19 }, contact: [billing@nordlicht.example, +49 40 1234567],\n" +
  "  bank: [IBAN DE89 3704 0044 0532 0130 00] }\n" +
  "numbering: { pattern: 'INV-{yyyy}-{seq:05}', creditNotePattern: 'CN-{yyyy}-{seq:05}' }\n";

/** The price list, in EUR. */
export const PRICES_YAML = "currency: EUR\nprices: { CU: 0.05, SU: { perMonth: 40 }, TU: 0.002, NU: 20 }\n";

/** `cloudunits generate` of October 2026 for account `id` alone (seeded by its id) into `out`: one cloud space, two machines. */
export function generateOctober(out: string, id: number, extra: string[] = []): Promise<CliRun> {
  return runCli([
    "generate",
    "--out",
    out,
    "--accounts",
    "1",
    "--first-account-id",
    String(id),
    "--spaces",
    "1",
    "--machines",
    "2",
    "--hours",
    "744",
    "--start",
    "2026-10-01",
    "--seed",
    String(id),
    ...extra,
  ]);
}

/** Every file of a folder with the SHA-256 of its bytes, by name. */
export function folderHashes(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((name) => [
        name,
        createHash("sha256")
          .update(readFileSync(join(dir, name)))
          .digest("hex"),
      ]),
  );
}

/** `cloudunits invoices issue` of October 2026 from these files, at `now` (default `MONTH_END`). */
export function issueOctober(
  files: { db: string; statement: string; prices: string; out: string },
  extra: string[] = [],
  now = MONTH_END,
): Promise<CliRun> {
  const { db, statement, prices, out } = files;
  return runCli(
    [
      "invoices",
      "issue",
      "--db",
      db,
      "--month",
      "2026-10",
      "--statement",
      statement,
      "--prices",
      prices,
      "--out",
      out,
      ...extra,
    ],
    at(now),
  );
}
