import type { DuckDBConnection } from "@duckdb/node-api";
import { UsageError } from "../errors.js";
import { cuRuleText, tuText } from "../billing/units.js";
import { hourlyLines, type BillingLine } from "../billing/lines.js";
import { Exact } from "../billing/exact.js";
import { chargeOf, nuUnit } from "../billing/money.js";
import { priceAt } from "../billing/prices.js";
import { nameOf } from "../billing/names.js";
import type { BillingReport } from "../billing/billingReport.js";
import type { UnitName } from "../billing/unitNames.js";
import { isoUtc } from "../time.js";

/** Options of the FOCUS exports. */
export interface FocusOptions {
  /** One row per entity and unit over the whole period instead of per hour; default false. */
  perPeriod?: boolean;
}

/** The type of a FOCUS column, which decides its Parquet type. */
export type FocusType = "decimal" | "quantity" | "datetime" | "string";

/** The FOCUS 1.2 columns written, in order (mandatory and conditional ones, then `x_` extensions). */
export const FOCUS_COLUMNS: readonly (readonly [string, FocusType])[] = [
  ["BilledCost", "decimal"], ["BillingAccountId", "string"], ["BillingAccountName", "string"], ["BillingAccountType", "string"],
  ["BillingCurrency", "string"], ["BillingPeriodEnd", "datetime"], ["BillingPeriodStart", "datetime"], ["ChargeCategory", "string"],
  ["ChargeClass", "string"], ["ChargeDescription", "string"], ["ChargeFrequency", "string"], ["ChargePeriodEnd", "datetime"],
  ["ChargePeriodStart", "datetime"], ["ConsumedQuantity", "quantity"], ["ConsumedUnit", "string"], ["ContractedCost", "decimal"],
  ["ContractedUnitPrice", "decimal"], ["EffectiveCost", "decimal"], ["InvoiceIssuerName", "string"], ["ListCost", "decimal"],
  ["ListUnitPrice", "decimal"], ["PricingCategory", "string"], ["PricingQuantity", "quantity"], ["PricingUnit", "string"],
  ["ProviderName", "string"], ["PublisherName", "string"], ["ResourceId", "string"], ["ResourceName", "string"],
  ["ResourceType", "string"], ["ServiceCategory", "string"], ["ServiceName", "string"], ["SkuId", "string"], ["SkuPriceId", "string"],
  ["SubAccountId", "string"], ["SubAccountName", "string"],
  ["x_Level", "string"], ["x_Unit", "string"], ["x_CuRollup", "string"], ["x_AccountId", "string"], ["x_CloudspaceId", "string"],
  ["x_MachineId", "string"], ["x_SampleHours", "quantity"],
];

/** A FOCUS row: column name → text, number, exact cost, or null. */
export type FocusRow = Record<string, string | number | Exact | null>;

const SERVICE: Record<UnitName, { category: string; name: string; what: string }> = {
  CU: { category: "Compute", name: "Compute", what: "compute units" },
  VCU: { category: "Compute", name: "Compute", what: "virtual CPUs" },
  MU: { category: "Compute", name: "Compute", what: "memory GiB" },
  WU: { category: "Compute", name: "Windows licensing", what: "Windows units (CU of Windows VMs)" },
  SU: { category: "Storage", name: "Block storage", what: "storage units (TB allocated)" },
  TU: { category: "Storage", name: "Block storage IOPS", what: "transaction units" },
  NU: { category: "Networking", name: "Public network traffic", what: "network units (TB of external traffic, a volume)" },
  PIU: { category: "Networking", name: "Public IP addresses", what: "public IP units" },
};

/** Units FOCUS rows take from a line: each unit is charged at one level, so the rows add up to the accounts' invoices. */
function chargedUnits(line: BillingLine, report: BillingReport): [UnitName, number][] {
  const q = line.unitHours;
  const aggregate = report.options.cuRollup === "aggregate";
  switch (line.level) {
    case "machine":
      return ([...(aggregate ? [] : ["CU"]), "SU", "TU", "VCU", "MU", "WU", "PIU"] as UnitName[]).map((u) => [u, q[u] ?? 0]);
    case "cloudspace":
      return [["NU", q.NU ?? 0], ["PIU", line.gatewayPiuHours]];
    case "account":
      return aggregate ? [["CU", q.CU ?? 0]] : [];
    case "environment":
    case "gateway":
      return [];
  }
}

function resource(line: BillingLine, unit: UnitName): { id: string; type: string } {
  const account = `account/${line.accountId}`;
  const cloudspace = `${account}/cloudspace/${line.cloudspaceId}`;
  if (line.level === "machine") return { id: `${cloudspace}/machine/${line.machineId}`, type: "Virtual Machine" };
  if (line.level === "cloudspace") return unit === "PIU" ? { id: `${cloudspace}/gateway`, type: "Virtual Gateway" } : { id: cloudspace, type: "Cloud Space" };
  return { id: account, type: "Account" };
}

function describe(line: BillingLine, unit: UnitName, report: BillingReport): string {
  const units = report.options.units;
  const what = unit === "TU" ? `${SERVICE.TU.what} (${tuText(units)})` : SERVICE[unit].what;
  if (line.level === "account") {
    return `${unit}: ${what} of account ${line.accountId}, aggregate rollup: ${cuRuleText(units)} of the account's VMs per hour`;
  }
  if (line.level === "cloudspace") {
    return unit === "PIU" ? `PIU: the public IP of the gateway of cloud space ${line.cloudspaceId}` : `${unit}: ${what} of cloud space ${line.cloudspaceId} (gateway and VMs)`;
  }
  return `${unit}: ${what} of VM ${line.machineId} in cloud space ${line.cloudspaceId}${unit === "CU" ? `, ${report.options.cuRollup} rollup` : ""}`;
}

/**
 * The FOCUS rows of one line (of an hour, or of a part of the period in which no price changes,
 * `pricedAt` its first hour): one per charged unit with a price and a non-zero quantity.
 */
function rowsOf(
  line: BillingLine, report: BillingReport, period: { start: string; end: string }, billingPeriod: { start: string; end: string }, pricedAt: number,
): FocusRow[] {
  const list = report.prices!;
  const names = report.options.names;
  const rows: FocusRow[] = [];
  for (const [unit, unitHours] of chargedUnits(line, report)) {
    if (unitHours === 0) continue;
    const charge = chargeOf(unit, unitHours, line.accountId, list, report.options.units, pricedAt);
    if (!charge) continue;
    const nu = nuUnit(report.options.units);
    const basis = charge.basis === "month" ? "Months" : "Hours";
    const pricingUnit = charge.basis === "TB" ? nu : `${unit}-${basis}`;
    const { id, type } = resource(line, unit);
    const price = priceAt(list, line.accountId, unit, pricedAt)!;
    const overridden = line.accountId !== null && list.accounts.get(line.accountId)?.[unit]?.includes(price) === true;
    rows.push({
      BilledCost: charge.amount, BillingAccountId: String(line.accountId), BillingAccountName: nameOf(names, "account", line.accountId!),
      BillingAccountType: "Account", BillingCurrency: list.currency,
      BillingPeriodEnd: billingPeriod.end, BillingPeriodStart: billingPeriod.start,
      ChargeCategory: "Usage", ChargeClass: null, ChargeDescription: describe(line, unit, report), ChargeFrequency: "Usage-Based",
      ChargePeriodEnd: period.end, ChargePeriodStart: period.start,
      ConsumedQuantity: unitHours, ConsumedUnit: unit === "NU" ? nu : `${unit}-Hours`,
      ContractedCost: charge.amount, ContractedUnitPrice: charge.unitPrice, EffectiveCost: charge.amount,
      InvoiceIssuerName: list.invoiceIssuer, ListCost: charge.amount, ListUnitPrice: charge.unitPrice, PricingCategory: "Standard",
      PricingQuantity: charge.pricingQuantity, PricingUnit: pricingUnit,
      ProviderName: list.provider, PublisherName: list.provider,
      ResourceId: id, ResourceName: unit === "PIU" && line.level === "cloudspace" ? "" : line.name, ResourceType: type,
      ServiceCategory: SERVICE[unit].category, ServiceName: SERVICE[unit].name,
      SkuId: unit, SkuPriceId: `${pricingUnit}${overridden ? `/account-${line.accountId}` : ""}${price.from === undefined ? "" : `/from-${isoUtc(price.from)}`}`,
      SubAccountId: line.cloudspaceId === null ? null : String(line.cloudspaceId),
      SubAccountName: line.cloudspaceId === null ? null : nameOf(names, "cloudspace", line.cloudspaceId),
      x_Level: line.level, x_Unit: unit, x_CuRollup: report.options.cuRollup, x_AccountId: String(line.accountId),
      x_CloudspaceId: line.cloudspaceId === null ? null : String(line.cloudspaceId),
      x_MachineId: line.machineId === null ? null : String(line.machineId), x_SampleHours: line.sampleHours,
    });
  }
  return rows;
}

/**
 * The rounding adjustments: per account and invoice line (a unit and price period), the line's
 * rounded amount less the Σ of the exact costs of its usage rows, as one `Adjustment` row when
 * not zero, so that the BilledCost of an account's rows adds up to its amount due.
 */
function adjustmentRows(report: BillingReport, billed: ReadonlyMap<string, Exact>, billingPeriod: { start: string; end: string }): FocusRow[] {
  const list = report.prices!;
  const names = report.options.names;
  const rows: FocusRow[] = [];
  for (const invoice of report.invoices ?? []) {
    for (const line of invoice.lines) {
      const adjustment = line.amount.add(Exact.of(-1n).mul(billed.get(`${invoice.accountId}/${line.unit}/${line.start}`) ?? Exact.ZERO));
      if (adjustment.isZero()) continue;
      const account = String(invoice.accountId);
      rows.push({
        BilledCost: adjustment, BillingAccountId: account, BillingAccountName: nameOf(names, "account", invoice.accountId),
        BillingAccountType: "Account", BillingCurrency: list.currency, BillingPeriodEnd: billingPeriod.end, BillingPeriodStart: billingPeriod.start,
        ChargeCategory: "Adjustment", ChargeClass: null,
        ChargeDescription: `${line.unit}: rounding of the invoice line of account ${account} (${line.quantity} ${line.quantityUnit} × ${line.unitPrice} = ${line.amount.toFixed(invoice.decimals)} ${list.currency}, half-even)`,
        ChargeFrequency: "One-Time", ChargePeriodEnd: isoUtc(line.end), ChargePeriodStart: isoUtc(line.start),
        ConsumedQuantity: null, ConsumedUnit: null, ContractedCost: adjustment, ContractedUnitPrice: null, EffectiveCost: adjustment,
        InvoiceIssuerName: list.invoiceIssuer, ListCost: adjustment, ListUnitPrice: null, PricingCategory: null,
        PricingQuantity: null, PricingUnit: null, ProviderName: list.provider, PublisherName: list.provider,
        ResourceId: `account/${account}`, ResourceName: invoice.name, ResourceType: "Account",
        ServiceCategory: SERVICE[line.unit].category, ServiceName: SERVICE[line.unit].name, SkuId: line.unit, SkuPriceId: null,
        SubAccountId: null, SubAccountName: null, x_Level: "account", x_Unit: line.unit, x_CuRollup: report.options.cuRollup,
        x_AccountId: account, x_CloudspaceId: null, x_MachineId: null, x_SampleHours: null,
      });
    }
  }
  return rows;
}

/**
 * Adds the exact BilledCost of usage rows charged from hour `at` per account, unit and invoice
 * line (keyed by its start; `starts`: the starts of the lines of each account and unit).
 */
function tally(billed: Map<string, Exact>, rows: FocusRow[], at: number, starts: ReadonlyMap<string, number[]>): FocusRow[] {
  for (const row of rows) {
    const key = `${String(row.x_AccountId)}/${String(row.x_Unit)}`;
    const start = starts.get(key)?.findLast((s) => s <= at);
    billed.set(`${key}/${start}`, (billed.get(`${key}/${start}`) ?? Exact.ZERO).add(row.BilledCost as Exact));
  }
  return rows;
}

/** The starts of the invoice lines of each account and unit (`account/unit`), ascending. */
function lineStarts(report: BillingReport): Map<string, number[]> {
  const starts = new Map<string, number[]>();
  for (const invoice of report.invoices ?? []) {
    for (const line of invoice.lines) {
      const key = `${invoice.accountId}/${line.unit}`;
      starts.set(key, [...(starts.get(key) ?? []), line.start]);
    }
  }
  return starts;
}

/**
 * The FOCUS 1.2 rows of a report, in batches: one row per entity, charged unit and hour
 * (or per entity and unit over the period with `perPeriod`). Each unit is charged at one
 * level so that the rows' BilledCost adds up to the accounts' invoices: SU, TU, VCU, MU,
 * WU and the VMs' PIU per VM; NU and the gateways' PIU per cloud space; CU per VM under
 * `sum`, per account under `aggregate` (the account's own CU is what is billed). Only units
 * with a price and a non-zero quantity have rows. Costs are exact (not rounded); last, one
 * `Adjustment` row per account and invoice line whose rounding differs from the Σ of its
 * rows, so every account's BilledCost adds up to its amount due, to the cent.
 */
export async function* focusRows(report: BillingReport, connection: DuckDBConnection, options: FocusOptions = {}): AsyncGenerator<FocusRow[]> {
  if (!report.prices) throw new UsageError("FOCUS rows are costs: give a price list (--prices FILE)");
  const billingPeriod = { start: isoUtc(report.params.start), end: isoUtc(report.params.end) };
  const levels = ["account", "cloudspace", "machine"] as const;
  const billed = new Map<string, Exact>();
  const starts = lineStarts(report);
  if (options.perPeriod) {
    // where a price changes within the period, rows per part of it (each at one price)
    const parts = report.parts ?? [{ start: report.params.start, end: report.params.end, lines: report.lines }];
    for (const part of parts) {
      const period = { start: isoUtc(part.start), end: isoUtc(part.end) };
      yield tally(billed, part.lines.flatMap((l) => rowsOf(l, report, period, billingPeriod, part.start)), part.start, starts);
    }
    yield adjustmentRows(report, billed, billingPeriod);
    return;
  }
  const billingOptions = { ...report.options };
  let hour = { epoch: Number.NaN, start: "", end: "" };
  for await (const batch of hourlyLines(connection, report.params, billingOptions, levels)) {
    yield tally(billed, batch.flatMap((l) => {
      if (l.hourEpoch !== hour.epoch) hour = { epoch: l.hourEpoch!, start: isoUtc(l.hourEpoch!), end: isoUtc(l.hourEpoch! + 3600) };
      return rowsOf(l, report, hour, billingPeriod, l.hourEpoch!);
    }), hour.epoch, starts);
  }
  yield adjustmentRows(report, billed, billingPeriod);
}

