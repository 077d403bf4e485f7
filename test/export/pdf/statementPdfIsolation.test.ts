import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { beforeAll, expect, it } from "vitest";
import { describeWith } from "../../helpers/prerequisites.js";
import { parseStatementConfig, writeStatements } from "../../../src/index.js";
import { leaksOf, statementFixture, type StatementPart } from "../../helpers/statementIsolation.js";
import { HOUR, memoryWarehouse, OCT_1 } from "../../helpers/warehouse.js";
import { reportFrom } from "../../helpers/billFrom.js";

const fixture = statementFixture();
let files: string[];

/** A PDF's parts as a reader and a tool see them: each page's text, and its document information. */
function pdfParts(file: string): StatementPart[] {
  const pages = execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" }).split("\f");
  return [
    ...pages.map((text, i) => ({ part: `page ${i + 1}`, text: text.normalize("NFC") })),
    { part: "info", text: execFileSync("pdfinfo", [file], { encoding: "utf8" }).normalize("NFC") },
  ];
}

beforeAll(async () => {
  const connection = await memoryWarehouse(fixture.hours);
  // the fixture's 48 hours, so that its missing hours are the only ones
  const report = await reportFrom(
    connection,
    { start: OCT_1, end: OCT_1 + 48 * HOUR },
    { names: fixture.names },
    { prices: fixture.prices },
  );
  const config = parseStatementConfig({
    issuer: {
      legalName: "Nordlicht Cloud Services GmbH",
      address: ["Hafenstraße 12"],
      tax: { category: "S", ratePercent: 19 },
    },
    numbering: { pattern: "INV-{yyyy}-{seq:05}" },
    issueDate: "2026-11-02",
    customers: Object.fromEntries(fixture.accounts.map((a) => [a.id, { legalName: a.name, address: ["Somewhere"] }])),
  });
  files = await writeStatements(report, config, {
    dir: join(await mkdtemp(join(tmpdir(), "cu-pdf-isolation-")), "pdf"),
  });
}, 60_000);

describeWith("poppler", "an account's draft PDF holds that account alone", () => {
  it.each(fixture.accounts.map((a) => [a.id, a] as const))(
    "account %i's PDF: no other account's id or name on any page or in its information, its own are there",
    (id, own) => {
      const file = files.find((f) => basename(f).startsWith(`draft-${id}-`))!;
      const parts = pdfParts(file);
      expect(
        leaksOf(
          parts,
          fixture.accounts.filter((a) => a.id !== id),
        ),
      ).toEqual([]);
      expect(leaksOf(parts, [own]).length).toBeGreaterThan(0);
    },
  );

  it("flags only its own missing hours: 7102 has three, 7104 one, the others none", () => {
    const missing = (id: number) => {
      const text = pdfParts(files.find((f) => basename(f).startsWith(`draft-${id}-`))!)[0]!.text.replace(/\s+/g, " ");
      return /(\d+) hours? of the period had no consumption data and (?:is|are) not charged/.exec(text)?.[1];
    };
    expect(fixture.accounts.map((a) => missing(a.id))).toEqual([undefined, "3", undefined, "1", undefined]);
  });
});
