import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  BILLING_FORMAT_NAMES,
  BILLING_FORMATS,
  checkFormatFlags,
  formatHelp,
  type BillingFormat,
  type BillingFormatName,
  type FormatFlags,
} from "../../src/export/billingFormats.js";
import { REPO } from "../helpers/shellExamples.js";
import { runCli } from "../helpers/runCli.js";

// One registry says which billing formats exist, which flags each takes and what each needs;
// the CLI's choices and checks come from it.
const refused: [BillingFormatName, FormatFlags, RegExp][] = [
  ["focus-csv", {}, /--format focus-csv needs --prices FILE \(FOCUS rows are costs\)/],
  ["focus-parquet", { prices: true }, /--format focus-parquet writes a binary file: give --out FILE/],
  ["xlsx", {}, /--format xlsx writes a binary file: give --out FILE/],
  ["json", { detail: "hourly" }, /--detail hourly applies to --format csv/],
  ["csv", { hourly: true }, /--hourly applies to --format xlsx/],
  ["text", { perAccount: true }, /--per-account applies to --format xlsx/],
  ["csv", { perPeriod: true }, /--per-period applies to --format focus-csv and focus-parquet/],
  ["xlsx", { excel: true, out: "x.xlsx" }, /--excel applies to --format csv/],
  ["pdf", { prices: true, out: "dir" }, /--format pdf needs --prices FILE, --statement FILE/],
  [
    "xlsx",
    { statement: true, prices: true, out: "x.xlsx" },
    /--statement applies to --format pdf and to the --per-account pack/,
  ],
  ["xlsx", { statement: true, perAccount: true, out: "dir" }, /--statement needs --prices FILE/],
];
const accepted: [BillingFormatName, FormatFlags][] = [
  ["json", {}],
  ["text", {}],
  ["csv", { detail: "hourly", excel: true }],
  ["xlsx", { hourly: true, perAccount: true, out: "dir" }],
  ["focus-csv", { prices: true, perPeriod: true }],
  ["focus-parquet", { prices: true, out: "f.parquet" }],
  ["pdf", { prices: true, statement: true, out: "dir" }],
  ["xlsx", { statement: true, prices: true, perAccount: true, out: "dir" }],
];

describe("the billing formats", () => {
  it.each(refused)("refuse --format %s with %j", (name, flags, message) => {
    expect(() => checkFormatFlags(name, flags)).toThrow(message);
  });

  it.each(accepted)("accept --format %s with %j", (name, flags) => {
    expect(() => checkFormatFlags(name, flags)).not.toThrow();
  });

  it("ask the bill for its hourly lines exactly where the output has a row per hour, and json for the calculate shape alone", () => {
    const produce = (name: BillingFormatName, flags: FormatFlags = {}) =>
      (BILLING_FORMATS[name] as BillingFormat).produce?.(flags) ?? {};
    expect(BILLING_FORMAT_NAMES.filter((n) => produce(n).hourly)).toEqual(["focus-csv", "focus-parquet"]);
    expect(produce("csv", { detail: "hourly" }).hourly).toBe(true);
    expect(produce("xlsx", { hourly: true }).hourly).toBe(true);
    expect(BILLING_FORMAT_NAMES.filter((n) => produce(n).calculate)).toEqual(["json"]);
    expect(BILLING_FORMAT_NAMES.filter((n) => produce(n).fingerprints)).toEqual(["xlsx"]);
  });

  it("are described once, in the registry: --help, docs/cli.md's --format row and the format lists of docs/cli.md and the README are made of it", async () => {
    const help = (await runCli(["billing", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain(formatHelp());
    for (const [name, format] of Object.entries(BILLING_FORMATS as Record<string, BillingFormat>)) {
      expect(formatHelp()).toContain(`${name}: ${format.description}`);
    }
    const cli = readFileSync(join(REPO, "docs/cli.md"), "utf8");
    const row = cli.split("\n").find((l) => l.startsWith("| `--format` | json:"))!;
    expect(row).toBe(
      `| \`--format\` | ${formatHelp()} (one of ${BILLING_FORMAT_NAMES.map((n) => `\`${n}\``).join(", ")}) | \`json\` |`,
    );
    // the commands' tables: each lists the formats, in the registry's order
    for (const [doc, text] of [
      ["docs/cli.md", cli],
      ["README.md", readFileSync(join(REPO, "README.md"), "utf8")],
    ] as const) {
      const line = text.split("\n").find((l) => l.startsWith("| `billing` | units and money"))!;
      const listed = [...line.matchAll(/`([\w-]+)`/g)]
        .map((m) => m[1])
        .filter((n) => n !== "billing" && !n.startsWith("--"));
      expect(listed, doc).toEqual(BILLING_FORMAT_NAMES);
    }
  });

  it("are the choices of cloudunits billing --format, in order", async () => {
    const help = await runCli(["billing", "--help"]);
    const choices = /--format[\s\S]*?\[choices: ([^\]]*)\]/.exec(help.stdout)![1]!;
    expect(choices.split(", ").map((c) => c.replaceAll('"', ""))).toEqual(BILLING_FORMAT_NAMES);
  });
});
