// The FOCUS files held to the FinOps Foundation's rules: the rules of its FOCUS rule model (the
// validator's model of FOCUS 1.2, whose rules 1.3 keeps for these columns) that can be checked
// row by row on our columns, each written here as SQL: `when` picks the rows it applies to,
// `must` is what those rows hold. Both files (`focus-csv`, `focus-parquet`) of a bill with no
// names known, a price that changes within the period and the account's CU split over its VMs
// are read by DuckDB and every rule is counted over every row. docs/billing.md lists the rules.
import { DuckDBInstance, type DuckDBConnection } from "@duckdb/node-api";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/runCli.js";

interface Rule {
  /** The rule's id in the FinOps Foundation's model. */
  id: string;
  /** The rows it applies to (SQL; default every row). */
  when?: string;
  /** What each of those rows must hold (SQL). */
  must: string;
}

const num = (column: string) => `TRY_CAST(${column} AS DOUBLE)`;
const CHARGED = "ChargeCategory IN ('Usage', 'Purchase') AND ChargeClass IS DISTINCT FROM 'Correction'";
const notNull = (...columns: string[]): Rule[] =>
  columns.map((c) => ({ id: `${c}-not-null`, must: `${c} IS NOT NULL` }));
/** Within a cent's trillionth: costs are rounded half-even to 12 decimals. */
const product = (price: string, cost: string) =>
  `abs(${num(price)} * ${num("PricingQuantity")} - ${num(cost)}) <= 1e-9 * greatest(1, abs(${num(cost)}))`;

const FOCUS_RULES: Rule[] = [
  // never null: BilledCost-C-003-M, BillingAccountId-C-001-M, BillingCurrency-C-004-M, BillingPeriodStart-C-003-M, ...
  ...notNull(
    "BilledCost",
    "BillingAccountId",
    "BillingCurrency",
    "BillingPeriodStart",
    "BillingPeriodEnd",
    "ChargeCategory",
    "ChargeFrequency",
    "ChargePeriodStart",
    "ChargePeriodEnd",
    "ContractedCost",
    "EffectiveCost",
    "InvoiceIssuerName",
    "ListCost",
    "ProviderName",
    "PublisherName",
    "ServiceCategory",
    "ServiceName",
    "ServiceSubcategory",
  ).map((r) => ({ ...r, id: `${r.id.replace("-not-null", "")}-C-00x-M` })),
  { id: "BillingAccountName-C-003-C", must: "BillingAccountName IS NOT NULL" }, // names are supported (--names, sync)
  { id: "BillingAccountType-C-005-C", when: "BillingAccountId IS NOT NULL", must: "BillingAccountType IS NOT NULL" },
  { id: "SubAccountName-C-004-C", when: "SubAccountId IS NULL", must: "SubAccountName IS NULL" },
  { id: "SubAccountName-C-005-C", when: "SubAccountId IS NOT NULL", must: "SubAccountName IS NOT NULL" },
  { id: "ResourceType-C-004-C", when: "ResourceId IS NULL", must: "ResourceType IS NULL" },
  { id: "ResourceType-C-005-C", when: "ResourceId IS NOT NULL", must: "ResourceType IS NOT NULL" },
  { id: "ChargeCategory-C-003-M", must: "ChargeCategory IN ('Usage', 'Purchase', 'Tax', 'Credit', 'Adjustment')" },
  { id: "ChargeClass-C-005-C", when: "ChargeClass IS NOT NULL", must: "ChargeClass = 'Correction'" },
  { id: "ChargeFrequency-C-003-M", must: "ChargeFrequency IN ('One-Time', 'Recurring', 'Usage-Based')" },
  { id: "ChargeFrequency-C-004-C", when: "ChargeCategory = 'Purchase'", must: "ChargeFrequency <> 'Usage-Based'" },
  { id: "PricingCategory-C-004-C", when: CHARGED, must: "PricingCategory IS NOT NULL" },
  {
    id: "PricingCategory-C-007-M",
    when: "PricingCategory IS NOT NULL",
    must: "PricingCategory IN ('Standard', 'Dynamic', 'Committed', 'Other')",
  },
  // FOCUS 1.4 (CAU-PricingCategory-C-012-C): null where SkuPriceId is null, as on our Adjustment rows; 1.3 allows it there (PricingCategory-C-005-O)
  { id: "CAU-PricingCategory-C-012-C", when: "SkuPriceId IS NULL", must: "PricingCategory IS NULL" },
  { id: "ListUnitPrice-C-005-C", when: CHARGED, must: "ListUnitPrice IS NOT NULL" },
  { id: "ListUnitPrice-C-008-M", when: "ListUnitPrice IS NOT NULL", must: `${num("ListUnitPrice")} >= 0` },
  {
    id: "ListCost-C-009-C",
    when: "ListUnitPrice IS NOT NULL AND PricingQuantity IS NOT NULL AND ChargeClass IS NULL",
    must: product("ListUnitPrice", "ListCost"),
  },
  { id: "ContractedUnitPrice-C-006-C", when: CHARGED, must: "ContractedUnitPrice IS NOT NULL" },
  {
    id: "ContractedUnitPrice-C-009-C",
    when: "ContractedUnitPrice IS NOT NULL",
    must: `${num("ContractedUnitPrice")} >= 0`,
  },
  {
    id: "ContractedUnitPrice-C-011-C",
    when: "PricingQuantity IS NOT NULL AND ChargeClass IS NULL",
    must: product("ContractedUnitPrice", "ContractedCost"),
  },
  { id: "PricingQuantity-C-005-C", when: CHARGED, must: "PricingQuantity IS NOT NULL" },
  { id: "PricingUnit-C-005-C", when: "PricingQuantity IS NULL", must: "PricingUnit IS NULL" },
  { id: "PricingUnit-C-006-C", when: "PricingQuantity IS NOT NULL", must: "PricingUnit IS NOT NULL" },
  { id: "ConsumedQuantity-C-004-C", when: "ChargeCategory <> 'Usage'", must: "ConsumedQuantity IS NULL" },
  { id: "ConsumedUnit-C-005-C", when: "ConsumedQuantity IS NULL", must: "ConsumedUnit IS NULL" },
  { id: "ConsumedUnit-C-006-C", when: "ConsumedQuantity IS NOT NULL", must: "ConsumedUnit IS NOT NULL" },
  { id: "SkuId-C-005-C", when: CHARGED, must: "SkuId IS NOT NULL" },
  { id: "SkuPriceId-C-005-C", when: CHARGED, must: "SkuPriceId IS NOT NULL" },
  { id: "SkuPriceDetails-C-004-C", when: "SkuPriceId IS NULL", must: "SkuPriceDetails IS NULL" },
  { id: "SkuMeter-C-004-C", when: "SkuId IS NULL", must: "SkuMeter IS NULL" },
  { id: "InvoiceId-C-005-C", must: "InvoiceId IS NOT NULL" }, // every row is of a statement's invoice
];

const PRICES =
  "currency: EUR\nprovider: Example Cloud\nprices:\n  CU: [0.05, { from: 2026-10-01T03:00Z, price: 0.07 }]\n  SU: { perMonth: 40 }\n  TU: 0.013\n  NU: 20\n  PIU: { perMonth: 3 }\n";

let dir: string;
let db: DuckDBConnection;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cloudunits-focus-rules-"));
  writeFileSync(join(dir, "prices.yaml"), PRICES);
  const data = join(dir, "data.zip");
  const generated = await runCli([
    "generate",
    "--out",
    data,
    "--accounts",
    "2",
    "--spaces",
    "2",
    "--machines",
    "3",
    "--hours",
    "6",
    "--start",
    "2026-10-01",
  ]);
  expect(generated.code, generated.stderr).toBe(0);
  for (const format of ["focus-csv", "focus-parquet"]) {
    const run = await runCli([
      "billing",
      data,
      "--start",
      "2026-10-01",
      "--end",
      "2026-10-01T06:00Z",
      "--prices",
      join(dir, "prices.yaml"),
      "--format",
      format,
      "--out",
      join(dir, format),
    ]);
    expect(run.code, run.stderr).toBe(0);
  }
  db = await (await DuckDBInstance.create(":memory:")).connect();
  await db.run(
    `CREATE VIEW "focus-csv" AS SELECT * FROM read_csv('${join(dir, "focus-csv")}', header = true, all_varchar = true)`,
  );
  await db.run(`CREATE VIEW "focus-parquet" AS SELECT * FROM read_parquet('${join(dir, "focus-parquet")}')`);
}, 120_000);
afterAll(() => {
  db?.closeSync();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.each(["focus-csv", "focus-parquet"])("%s against the FinOps Foundation's FOCUS rules", (file) => {
  it("holds every rule on every row, with rows of every kind the rules speak of", async () => {
    const counted = await Promise.all(
      FOCUS_RULES.map(async (rule) => {
        const [row] = (
          await db.runAndReadAll(`SELECT count(*) FILTER (WHERE ${rule.when ?? "true"}) AS applies,
        count(*) FILTER (WHERE (${rule.when ?? "true"}) AND NOT coalesce(${rule.must}, false)) AS broken FROM "${file}"`)
        ).getRowObjectsJS();
        return { id: rule.id, applies: Number(row!.applies), broken: Number(row!.broken) };
      }),
    );
    expect(counted.filter((r) => r.broken > 0)).toEqual([]);
    const applies = new Map(counted.map((r) => [r.id, r.applies]));
    for (const id of [
      "SubAccountName-C-005-C",
      "SubAccountName-C-004-C",
      "CAU-PricingCategory-C-012-C",
      "ListCost-C-009-C",
      "PricingCategory-C-004-C",
    ]) {
      expect({ id, applies: applies.get(id)! > 0 }).toEqual({ id, applies: true });
    }
  });

  it("names an account or cloud space without a known name by its kind and id; an unnamed resource has no name", async () => {
    const names = (
      await db.runAndReadAll(
        `SELECT DISTINCT BillingAccountId, BillingAccountName, SubAccountId, SubAccountName FROM "${file}" WHERE SubAccountId IS NOT NULL ORDER BY 1, 3`,
      )
    ).getRowObjectsJS();
    expect(names.length).toBeGreaterThan(2);
    for (const n of names)
      expect([n.BillingAccountName, n.SubAccountName]).toEqual([
        `account ${String(n.BillingAccountId)}`,
        `cloud space ${String(n.SubAccountId)}`,
      ]);
    const [unnamed] = (
      await db.runAndReadAll(
        `SELECT count(*) FILTER (WHERE ResourceName = '') AS empty, count(*) FILTER (WHERE ResourceName IS NULL) AS nulls FROM "${file}"`,
      )
    ).getRowObjectsJS();
    expect({ empty: Number(unnamed!.empty), nulls: Number(unnamed!.nulls) > 0 }).toEqual({ empty: 0, nulls: true });
  });
});
