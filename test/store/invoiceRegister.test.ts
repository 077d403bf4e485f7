import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DuckDBConnection, DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeDataset } from "../../src/generate/writeDataset.js";
import { appendToRegister, sha256Hex, type RegisterRecord } from "../../src/invoices/register/appendToRegister.js";
import { numbersTaken, sequenceEnd } from "../../src/invoices/register/documentSequence.js";
import { heldHourFiles } from "../../src/invoices/register/heldHourFiles.js";
import { ingest } from "../../src/store/ingest.js";
import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { readRegister, readRegisterFiles } from "../../src/invoices/register/readRegister.js";
import { registerDrift } from "../../src/invoices/register/registerDrift.js";
import { invoiceFixture } from "../helpers/invoiceDocument.js";
import { HOUR, OCT_1 } from "../helpers/warehouse.js";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-register-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A new warehouse file opened to write (its schema made), closed after `fn`. */
async function withWarehouse<T>(name: string, fn: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
  const { instance, connection } = await openDatabaseFile(join(dir, name));
  try {
    return await fn(connection);
  } finally {
    close(instance, connection);
  }
}
const close = (instance: DuckDBInstance, connection: DuckDBConnection) => {
  connection.closeSync();
  instance.closeSync();
};

/** Records in one transaction, as issuing does. */
async function record(
  connection: DuckDBConnection,
  records: RegisterRecord[],
  correction?: Parameters<typeof appendToRegister>[2],
): Promise<void> {
  await connection.run("BEGIN TRANSACTION");
  try {
    await appendToRegister(connection, records, correction);
    await connection.run("COMMIT");
  } catch (error) {
    await connection.run("ROLLBACK");
    throw error;
  }
}

const pdf = (text: string) => new TextEncoder().encode(`%PDF-1.7 ${text}`);

describe("the register keeps each document as issued", () => {
  it("reads back the document, its basis hours in order, its files byte for byte and their SHA-256", async () => {
    await withWarehouse("roundtrip.duckdb", async (connection) => {
      const document = invoiceFixture();
      const bytes = pdf("INV-2026-00001");
      await record(connection, [
        { document, issuer: "DE123456789", seq: 1, files: [{ name: "INV-2026-00001.pdf", bytes }] },
      ]);
      const [entry] = await readRegister(connection);
      expect(entry!.document).toEqual(document);
      expect(entry!.entry).toBe(1);
      expect(entry!.files).toEqual([{ name: "INV-2026-00001.pdf", sha256: sha256Hex(bytes) }]);
      expect(entry!.correctedBy).toBeNull();
      expect(await readRegisterFiles(connection, "INV-2026-00001")).toEqual([
        { name: "INV-2026-00001.pdf", bytes: new Uint8Array(bytes) },
      ]);
      // lines and taxes are queryable by SQL, from the document as issued
      const lines = (
        await connection.runAndReadAll("SELECT unit, quantity, net FROM register_lines ORDER BY unit")
      ).getRowsJS();
      expect(lines).toEqual([
        ["CU", "100", "5.00"],
        ["SU", "1.5", "60.00"],
      ]);
      const taxes = (await connection.runAndReadAll("SELECT category, base, amount FROM register_taxes")).getRowsJS();
      expect(taxes).toEqual([["S", "65.00", "12.35"]]);
    });
  });

  it("records nothing of a transaction rolled back: no document, no basis hour, no file", async () => {
    await withWarehouse("rollback.duckdb", async (connection) => {
      await connection.run("BEGIN TRANSACTION");
      await appendToRegister(connection, [
        {
          document: invoiceFixture(),
          issuer: "DE123456789",
          seq: 1,
          files: [{ name: "INV-2026-00001.pdf", bytes: pdf("x") }],
        },
      ]);
      await connection.run("ROLLBACK");
      for (const table of ["register_documents", "register_basis_hours", "register_files"]) {
        expect((await connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRowsJS()[0]![0], table).toBe(0n);
      }
    });
  });

  it("refuses a number, a file name or a place in a sequence already held (the insert fails, the transaction with it)", async () => {
    await withWarehouse("unique.duckdb", async (connection) => {
      const first: RegisterRecord = {
        document: invoiceFixture(),
        issuer: "DE123456789",
        seq: 1,
        files: [{ name: "INV-2026-00001.pdf", bytes: pdf("1") }],
      };
      await record(connection, [first]);
      const again = [
        { ...first, seq: 2, files: [] }, // the same number
        { ...first, document: invoiceFixture({ number: "INV-2026-00002" }) }, // the same place in the sequence
        { ...first, document: invoiceFixture({ number: "INV-2026-00002" }), seq: 2 }, // the same file name
      ];
      for (const r of again) await expect(record(connection, [r])).rejects.toThrow(/constraint/i);
      expect((await readRegister(connection)).map((e) => e.document.number)).toEqual(["INV-2026-00001"]);
    });
  });
});

describe("append-only", () => {
  it("no source file updates or deletes a row of the register's tables", () => {
    const src = join(import.meta.dirname, "../../src");
    const files = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    const writes = files.flatMap((f) =>
      [
        ...readFileSync(join(src, f), "utf8").matchAll(
          /\b(UPDATE|DELETE\s+FROM|TRUNCATE|DROP\s+TABLE|INSERT\s+OR\s+REPLACE\s+INTO)\s+(\w+)/gi,
        ),
      ].map((m) => `${f}: ${m[0]}`),
    );
    expect(writes.length).toBeGreaterThan(0); // the scan finds the warehouse's other writes
    expect(writes.filter((w) => /register_/i.test(w))).toEqual([]);
  });
});

describe("sequences", () => {
  it("are per issuer (its peppolId, else its legal name), kind and year, and an invoice sequence continues after the statement numbers of older versions", async () => {
    const ISSUER = "Nordlicht Cloud Services GmbH"; // the fixture's issuer has no peppolId
    await withWarehouse("sequence.duckdb", async (connection) => {
      // what a version before the register left: statement numbers 1-3, of 2026
      await connection.run(`CREATE TABLE statement_numbers (seq BIGINT PRIMARY KEY, number VARCHAR NOT NULL UNIQUE, account_id BIGINT NOT NULL,
        period_start_epoch BIGINT NOT NULL, period_end_epoch BIGINT NOT NULL, issue_date VARCHAR NOT NULL, currency VARCHAR NOT NULL, amount_due VARCHAR NOT NULL)`);
      for (const seq of [1, 2, 3])
        await connection.run(
          `INSERT INTO statement_numbers VALUES (${seq}, 'INV-2026-0000${seq}', 7, 0, 1, '2026-10-0${seq}', 'EUR', '1.00')`,
        );
      expect(await sequenceEnd(connection, { issuer: ISSUER, kind: "invoice", year: 2026 })).toEqual({
        seq: 3,
        issueDate: "2026-10-03",
      });
      expect(await sequenceEnd(connection, { issuer: ISSUER, kind: "invoice", year: 2027 })).toEqual({
        seq: 0,
        issueDate: undefined,
      });
      expect(await sequenceEnd(connection, { issuer: ISSUER, kind: "creditNote", year: 2026 })).toEqual({
        seq: 0,
        issueDate: undefined,
      });
      await record(connection, [
        { document: invoiceFixture({ number: "INV-2026-00004" }), issuer: ISSUER, seq: 4, files: [] },
      ]);
      expect(await sequenceEnd(connection, { issuer: ISSUER, kind: "invoice", year: 2026 })).toEqual({
        seq: 4,
        issueDate: "2026-11-02",
      });
      expect(
        await sequenceEnd(connection, { issuer: "Alpenwolke Rechenzentrum GmbH", kind: "invoice", year: 2026 }),
      ).toEqual({ seq: 3, issueDate: "2026-10-03" });
      expect(await numbersTaken(connection, ["INV-2026-00002", "INV-2026-00004", "INV-2026-00005"])).toEqual([
        "INV-2026-00002",
        "INV-2026-00004",
      ]);
    });
  });
});

describe("registerDrift: issued invoices the warehouse now disagrees with", () => {
  it("names the hours that arrived late, were rewritten or vanished, of the invoices in force only", async () => {
    const db = join(dir, "drift.duckdb");
    const tree = (name: string) => join(dir, name);
    // account 7 holds hours 0-2 of October (hour 3 not yet)
    await writeDataset({
      out: tree("first"),
      accounts: 1,
      firstAccountId: 7,
      spaces: 1,
      machines: 2,
      hours: 3,
      start: OCT_1,
      seed: 1,
    });
    await ingest([tree("first")], { db });
    let { instance, connection } = await openDatabaseFile(db);
    const held = (await heldHourFiles(connection, { start: OCT_1, end: OCT_1 + 31 * 24 * HOUR })).get(7)!;
    expect(held.map((h) => h.hourEpoch)).toEqual([OCT_1, OCT_1 + HOUR, OCT_1 + 2 * HOUR]);
    expect(held.every((h) => /^[0-9a-f]{64}$/.test(h.filesSha256))).toBe(true);
    const basis = {
      ...invoiceFixture().basis,
      hours: held.map((h) => h.hourEpoch),
      hourSha256: held.map((h) => h.filesSha256),
    };
    await record(connection, [{ document: invoiceFixture({ basis }), issuer: "DE123456789", seq: 1, files: [] }]);
    expect(await registerDrift(connection)).toEqual([]);
    close(instance, connection);

    // hour 3 arrives late; hour 1 is rewritten (another file replaces the one held)
    await writeDataset({
      out: tree("late"),
      accounts: 1,
      firstAccountId: 7,
      spaces: 1,
      machines: 2,
      hours: 1,
      start: OCT_1 + 3 * HOUR,
      seed: 1,
    });
    await writeDataset({
      out: tree("rewrite"),
      accounts: 1,
      firstAccountId: 7,
      spaces: 1,
      machines: 2,
      hours: 1,
      start: OCT_1 + HOUR,
      seed: 2,
    });
    await ingest([tree("late")], { db });
    await ingest([tree("rewrite")], { db, replace: true });
    ({ instance, connection } = await openDatabaseFile(db));
    try {
      expect(await registerDrift(connection)).toEqual([
        {
          number: "INV-2026-00001",
          accountId: 7,
          start: OCT_1,
          end: Date.UTC(2026, 10, 1) / 1000,
          issueDate: "2026-11-02",
          late: [OCT_1 + 3 * HOUR],
          rewritten: [OCT_1 + HOUR],
          gone: [],
        },
      ]);
      // corrected: a credit note and a new invoice of the hours held now; the invoice corrected is no longer listed
      const now = (await heldHourFiles(connection, { start: OCT_1, end: OCT_1 + 31 * 24 * HOUR })).get(7)!;
      const newBasis = { ...basis, hours: now.map((h) => h.hourEpoch), hourSha256: now.map((h) => h.filesSha256) };
      await record(
        connection,
        [
          {
            document: invoiceFixture({
              number: "CN-2026-00001",
              kind: "creditNote",
              corrects: { number: "INV-2026-00001", issueDate: "2026-11-02" },
              basis,
            }),
            issuer: "DE123456789",
            seq: 1,
            files: [],
          },
          {
            document: invoiceFixture({
              number: "INV-2026-00002",
              corrects: { number: "INV-2026-00001", issueDate: "2026-11-02" },
              basis: newBasis,
            }),
            issuer: "DE123456789",
            seq: 2,
            files: [],
          },
        ],
        {
          corrected: "INV-2026-00001",
          creditNote: "CN-2026-00001",
          replacement: "INV-2026-00002",
          reason: "hours arrived late",
        },
      );
      expect(await registerDrift(connection)).toEqual([]);
      const corrected = (await readRegister(connection, { number: "INV-2026-00001" }))[0]!;
      expect([corrected.correctedBy, corrected.replacedBy]).toEqual(["CN-2026-00001", "INV-2026-00002"]);
      expect(corrected.document.basis.hours).toEqual(basis.hours); // the invoice corrected is left as it was
    } finally {
      close(instance, connection);
    }
  }, 60_000);

  it("is empty for a warehouse made before the register, opened read-only", async () => {
    const db = join(dir, "old.duckdb");
    await withWarehouse("old.duckdb", async (connection) => {
      for (const table of ["register_documents", "register_basis_hours", "register_files", "register_corrections"])
        await connection.run(`DROP TABLE ${table} CASCADE`);
    });
    const { instance, connection } = await openDatabaseFile(db, { readOnly: true });
    try {
      expect(await registerDrift(connection)).toEqual([]);
      expect(await readRegister(connection)).toEqual([]);
    } finally {
      close(instance, connection);
    }
  });
});
