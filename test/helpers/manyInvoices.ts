import { openDatabaseFile } from "../../src/store/openDatabaseFile.js";
import { appendToRegister } from "../../src/invoices/register/appendToRegister.js";
import { readRegister } from "../../src/invoices/register/readRegister.js";
import { paymentReferenceOf, renderUbl } from "../../src/internal.js";

/**
 * Adds `count` invoices to a warehouse's register, numbered `FIX-2026-00001`..., each a copy of the
 * register's first invoice under its own number and payment reference, with its UBL (no PDF: a
 * PDF takes a tenth of a second to render, and a statement of 500 entries needs 500 invoices;
 * these tests are of what comes after issuing). Written by the register's own writer.
 */
export async function addManyInvoices(db: string, count: number): Promise<string[]> {
  const { instance, connection } = await openDatabaseFile(db, { readOnly: false, create: false, waitSeconds: 10 });
  try {
    const template = (await readRegister(connection)).find((e) => e.document.kind === "invoice")!.document;
    const numbers: string[] = [];
    const records = Array.from({ length: count }, (_, i) => {
      const number = `FIX-2026-${String(i + 1).padStart(5, "0")}`;
      numbers.push(number);
      const document = {
        ...template,
        number,
        paymentReference: paymentReferenceOf(number, template.issuer.country),
        basis: { ...template.basis, hours: [], hourSha256: [] },
      };
      return {
        document,
        issuer: "fixture",
        seq: i + 1,
        files: [{ name: `${number}.xml`, bytes: renderUbl(document) }],
      };
    });
    await connection.run("BEGIN TRANSACTION");
    await appendToRegister(connection, records);
    await connection.run("COMMIT");
    return numbers;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
