import { UsageError } from "../base/errors.js";
import { cuRuleText } from "../billing/units.js";
import { catalogUnits, countsGatewayIp, isVolume, unitDef } from "../billing/unitCatalog.js";
import type { AccountLine, BillingLine } from "../billing/lines.js";
import { checkHourlyOf, type HourlyStream } from "../billing/hourlyStream.js";
import { Exact } from "../billing/exact.js";
import { chargeOf, nuUnit } from "../billing/money.js";
import { currencyOf, priceAt } from "../billing/prices.js";
import { nameOf, type Names } from "../billing/names.js";
import type { BillingReport } from "../billing/billingReport.js";
import type { UnitName } from "../billing/unitNames.js";
import { isoUtc } from "../base/time.js";
import type { Warning } from "../billing/dataQuality.js";

/** Options of the FOCUS exports. */
export interface FocusOptions {
  /** One row per entity and unit over the whole period instead of per hour; default false. */
  perPeriod?: boolean;
}

/** The type of a FOCUS column, which decides its Parquet type. */
export type FocusType = "decimal" | "quantity" | "datetime" | "string";

/**
 * The FOCUS 1.3 columns written, in order (mandatory, conditional and recommended ones, then
 * `x_` extensions; ProviderName and PublisherName, deprecated by ServiceProviderName, are kept for 1.2 readers).
 */
export const FOCUS_COLUMNS: readonly (readonly [string, FocusType])[] = [
  ["AllocatedMethodDetails", "string"],
  ["AllocatedMethodId", "string"],
  ["AllocatedResourceId", "string"],
  ["AllocatedResourceName", "string"],
  ["AllocatedTags", "string"],
  ["BilledCost", "decimal"],
  ["BillingAccountId", "string"],
  ["BillingAccountName", "string"],
  ["BillingAccountType", "string"],
  ["BillingCurrency", "string"],
  ["BillingPeriodEnd", "datetime"],
  ["BillingPeriodStart", "datetime"],
  ["ChargeCategory", "string"],
  ["ChargeClass", "string"],
  ["ChargeDescription", "string"],
  ["ChargeFrequency", "string"],
  ["ChargePeriodEnd", "datetime"],
  ["ChargePeriodStart", "datetime"],
  ["ConsumedQuantity", "quantity"],
  ["ConsumedUnit", "string"],
  ["ContractedCost", "decimal"],
  ["ContractedUnitPrice", "decimal"],
  ["EffectiveCost", "decimal"],
  ["HostProviderName", "string"],
  ["InvoiceId", "string"],
  ["InvoiceIssuerName", "string"],
  ["ListCost", "decimal"],
  ["ListUnitPrice", "decimal"],
  ["PricingCategory", "string"],
  ["PricingQuantity", "quantity"],
  ["PricingUnit", "string"],
  ["ProviderName", "string"],
  ["PublisherName", "string"],
  ["ResourceId", "string"],
  ["ResourceName", "string"],
  ["ResourceType", "string"],
  ["ServiceCategory", "string"],
  ["ServiceName", "string"],
  ["ServiceProviderName", "string"],
  ["ServiceSubcategory", "string"],
  ["SkuId", "string"],
  ["SkuMeter", "string"],
  ["SkuPriceDetails", "string"],
  ["SkuPriceId", "string"],
  ["SubAccountId", "string"],
  ["SubAccountName", "string"],
  ["x_Level", "string"],
  ["x_Unit", "string"],
  ["x_CuRollup", "string"],
  ["x_AccountId", "string"],
  ["x_CloudspaceId", "string"],
  ["x_MachineId", "string"],
  ["x_SampleHours", "quantity"],
];

/** A FOCUS row: column name → text, number, exact cost, or null. */
export type FocusRow = Record<string, string | number | Exact | null>;

/** Decimals of the costs written (Parquet's DECIMAL(38, 12)): each cost is rounded to them, half-even, before anything adds it. */
export const COST_DECIMALS = 12;

/** The AllocatedMethodId of CU charged to the VMs (FOCUS split cost allocation), and its description. */
export const CU_ALLOCATION_METHOD = "cloudunits-cu-by-own-cu";
const CU_ALLOCATION_DETAILS = JSON.stringify({
  x_Rule:
    "each hour the account's CU is split over its cloud spaces in proportion to their own CU, and each cloud space's over its VMs in proportion to theirs (equal shares when all are 0)",
});

/**
 * The InvoiceId of an account's invoice of a period: `<account>/<YYYY-MM>` for a calendar month,
 * else `<account>/<first hour>/<end>`: the charges of one invoice, whose BilledCost adds up to its amount due.
 */
export function invoiceIdOf(accountId: number, params: { start: number; end: number }): string {
  const start = isoUtc(params.start);
  const month = start.slice(0, 7);
  const next = new Date(params.start * 1000);
  next.setUTCMonth(next.getUTCMonth() + 1);
  const whole = start.endsWith("-01T00:00:00Z") && next.getTime() / 1000 === params.end;
  return whole ? `${accountId}/${month}` : `${accountId}/${start}/${isoUtc(params.end)}`;
}

/**
 * Units FOCUS rows take from a line: each unit of the catalog is charged at one level, so the
 * rows add up to the accounts' invoices: a VM's units per VM (a volume has none of a VM's own),
 * the volume (NU) and the gateway's public IP (PIU) per cloud space. Under `aggregate` the
 * account's CU (the charge) is split over its VMs by their allocated CU: `allocated` rows of
 * the VM, in the account's name (FOCUS split cost allocation).
 */
function chargedUnits(line: BillingLine, report: BillingReport): [UnitName, number, "allocated"?][] {
  const q = line.unitHours;
  const aggregate = report.options.cuRollup === "aggregate";
  switch (line.level) {
    case "machine":
      return catalogUnits()
        .filter((u) => !isVolume(u))
        .map((u): [UnitName, number, "allocated"?] =>
          unitDef(u).rule.kind === "cu" && aggregate ? [u, line.cuAllocatedHours, "allocated"] : [u, q[u] ?? 0],
        );
    case "cloudspace":
      return catalogUnits().flatMap((u): [UnitName, number][] =>
        isVolume(u) ? [[u, q[u] ?? 0]] : countsGatewayIp(u) ? [[u, line.gatewayPiuHours]] : [],
      );
    case "account":
    case "environment":
    case "gateway":
      return [];
  }
}

/**
 * The name of an account or cloud space in FOCUS's BillingAccountName and SubAccountName: the
 * known one, else `account 7` or `cloud space 505`. FOCUS wants a name wherever the id is given
 * (BillingAccountName-C-003-C, SubAccountName-C-005-C); ResourceName, by contrast, is null for a
 * resource without one, and stays so.
 */
function focusName(names: Names | undefined, kind: "account" | "cloudspace", id: number): string {
  return nameOf(names, kind, id) || `${kind === "account" ? "account" : "cloud space"} ${id}`;
}

/** The account's line an allocated charge is split from: the origin charge's dimensions (ids, name, level). */
function originOf(line: BillingLine, report: BillingReport): BillingLine {
  // only the dimensions are read from it (its figures are the allocated line's)
  return {
    ...line,
    level: "account",
    accountId: line.accountId!,
    cloudspaceId: null,
    machineId: null,
    name: nameOf(report.options.names, "account", line.accountId!),
  } as AccountLine;
}

function resource(line: BillingLine, unit: UnitName): { id: string; type: string } {
  const account = `account/${line.accountId}`;
  const cloudspace = `${account}/cloudspace/${line.cloudspaceId}`;
  if (line.level === "machine") return { id: `${cloudspace}/machine/${line.machineId}`, type: "Virtual Machine" };
  if (line.level === "cloudspace")
    return countsGatewayIp(unit)
      ? { id: `${cloudspace}/gateway`, type: "Virtual Gateway" }
      : { id: cloudspace, type: "Cloud Space" };
  return { id: account, type: "Account" };
}

function describe(line: BillingLine, unit: UnitName, report: BillingReport): string {
  const units = report.options.units;
  const what = unitDef(unit).focus.what(units);
  if (line.level === "account") {
    return `${unit}: ${what} of account ${line.accountId}, aggregate rollup: ${cuRuleText(units)} of the account's VMs per hour`;
  }
  if (line.level === "cloudspace") {
    return countsGatewayIp(unit)
      ? `${unit}: the public IP of the gateway of cloud space ${line.cloudspaceId}`
      : `${unit}: ${what} of cloud space ${line.cloudspaceId} (gateway and VMs)`;
  }
  return `${unit}: ${what} of VM ${line.machineId} in cloud space ${line.cloudspaceId}${unitDef(unit).rule.kind === "cu" ? `, ${report.options.cuRollup} rollup` : ""}`;
}

/**
 * The FOCUS rows of one line (of an hour, or of a part of the period in which no price changes,
 * `pricedAt` its first hour): one per charged unit with a price and a non-zero quantity.
 */
function rowsOf(
  entity: BillingLine,
  report: BillingReport,
  period: { start: string; end: string },
  billingPeriod: { start: string; end: string },
  pricedAt: number,
): FocusRow[] {
  const list = report.prices!;
  const names = report.options.names;
  const rows: FocusRow[] = [];
  for (const [unit, unitHours, allocated] of chargedUnits(entity, report)) {
    if (unitHours === 0) continue;
    const charge = chargeOf(unit, unitHours, entity.accountId, list, report.options.units, pricedAt);
    if (!charge) continue;
    // the cost as written; an allocated charge has the dimensions of its origin, the account's CU
    const cost = charge.amount.round(COST_DECIMALS);
    const line = allocated ? originOf(entity, report) : entity;
    const nu = nuUnit(report.options.units);
    const basis = charge.basis === "month" ? "Months" : "Hours";
    const pricingUnit = charge.basis === "TB" ? nu : `${unit}-${basis}`;
    const { id, type } = resource(line, unit);
    const service = unitDef(unit).focus;
    const price = priceAt(list, line.accountId, unit, pricedAt)!;
    const overridden = line.accountId !== null && list.accounts.get(line.accountId)?.[unit]?.includes(price) === true;
    rows.push({
      AllocatedMethodDetails: allocated ? CU_ALLOCATION_DETAILS : null,
      AllocatedMethodId: allocated ? CU_ALLOCATION_METHOD : null,
      AllocatedResourceId: allocated ? resource(entity, unit).id : null,
      AllocatedResourceName: allocated ? entity.name : null,
      AllocatedTags: null,
      BilledCost: cost,
      BillingAccountId: String(line.accountId),
      BillingAccountName: focusName(names, "account", line.accountId!),
      BillingAccountType: "Account",
      BillingCurrency: currencyOf(list, line.accountId).currency,
      BillingPeriodEnd: billingPeriod.end,
      BillingPeriodStart: billingPeriod.start,
      ChargeCategory: "Usage",
      ChargeClass: null,
      ChargeDescription: describe(line, unit, report),
      ChargeFrequency: "Usage-Based",
      ChargePeriodEnd: period.end,
      ChargePeriodStart: period.start,
      ConsumedQuantity: unitHours,
      ConsumedUnit: isVolume(unit) ? nu : `${unit}-Hours`,
      ContractedCost: cost,
      ContractedUnitPrice: charge.unitPrice,
      EffectiveCost: cost,
      HostProviderName: list.provider,
      InvoiceId: invoiceIdOf(line.accountId!, report.params),
      InvoiceIssuerName: list.invoiceIssuer,
      ListCost: cost,
      ListUnitPrice: charge.unitPrice,
      PricingCategory: "Standard",
      PricingQuantity: charge.pricingQuantity,
      PricingUnit: pricingUnit,
      ProviderName: list.provider,
      PublisherName: list.provider,
      ResourceId: id,
      ResourceName: countsGatewayIp(unit) && line.level === "cloudspace" ? "" : line.name,
      ResourceType: type,
      ServiceCategory: service.category,
      ServiceName: service.name,
      ServiceProviderName: list.provider,
      ServiceSubcategory: service.subcategory,
      SkuMeter: service.meter,
      SkuPriceDetails: JSON.stringify({ x_Unit: unit, x_PricingUnit: pricingUnit }),
      SkuId: unit,
      SkuPriceId: `${pricingUnit}${overridden ? `/account-${line.accountId}` : ""}${price.from === undefined ? "" : `/from-${isoUtc(price.from)}`}`,
      SubAccountId: line.cloudspaceId === null ? null : String(line.cloudspaceId),
      SubAccountName: line.cloudspaceId === null ? null : focusName(names, "cloudspace", line.cloudspaceId),
      ...extensionsOf(line, unit, report),
    });
  }
  return rows;
}

/** A usage row's own columns (`x_`): the line's level, unit, CU rule, ids and sample hours. */
function extensionsOf(line: BillingLine, unit: UnitName, report: BillingReport) {
  return {
    x_Level: line.level,
    x_Unit: unit,
    x_CuRollup: report.options.cuRollup,
    x_AccountId: String(line.accountId),
    x_CloudspaceId: line.cloudspaceId === null ? null : String(line.cloudspaceId),
    x_MachineId: line.machineId === null ? null : String(line.machineId),
    x_SampleHours: line.sampleHours,
  };
}

/**
 * The rounding adjustments: per account and invoice line (a unit and price period), the line's
 * rounded amount less the Σ of the costs of its usage rows as written, as one `Adjustment` row
 * when not zero, so that the BilledCost written of an account's rows adds up to its amount due exactly.
 */
function adjustmentRows(
  report: BillingReport,
  billed: ReadonlyMap<string, Exact>,
  billingPeriod: { start: string; end: string },
): FocusRow[] {
  const list = report.prices!;
  const names = report.options.names;
  const rows: FocusRow[] = [];
  for (const invoice of report.invoices ?? []) {
    for (const line of invoice.lines) {
      const adjustment = line.amount.add(
        Exact.of(-1n).mul(billed.get(`${invoice.accountId}/${line.unit}/${line.start}`) ?? Exact.ZERO),
      );
      if (adjustment.isZero()) continue;
      const account = String(invoice.accountId);
      const service = unitDef(line.unit).focus;
      rows.push({
        AllocatedMethodDetails: null,
        AllocatedMethodId: null,
        AllocatedResourceId: null,
        AllocatedResourceName: null,
        AllocatedTags: null,
        BilledCost: adjustment,
        BillingAccountId: account,
        BillingAccountName: focusName(names, "account", invoice.accountId),
        BillingAccountType: "Account",
        BillingCurrency: invoice.currency,
        BillingPeriodEnd: billingPeriod.end,
        BillingPeriodStart: billingPeriod.start,
        ChargeCategory: "Adjustment",
        ChargeClass: null,
        ChargeDescription: `${line.unit}: rounding of the invoice line of account ${account} (${line.quantity} ${line.quantityUnit} × ${line.unitPrice} = ${line.amount.toFixed(invoice.decimals)} ${invoice.currency}, half-even)`,
        ChargeFrequency: "One-Time",
        ChargePeriodEnd: isoUtc(line.end),
        ChargePeriodStart: isoUtc(line.start),
        ConsumedQuantity: null,
        ConsumedUnit: null,
        ContractedCost: adjustment,
        ContractedUnitPrice: null,
        EffectiveCost: adjustment,
        HostProviderName: list.provider,
        InvoiceId: invoiceIdOf(invoice.accountId, report.params),
        InvoiceIssuerName: list.invoiceIssuer,
        ListCost: adjustment,
        ListUnitPrice: null,
        PricingCategory: null,
        PricingQuantity: null,
        PricingUnit: null,
        ProviderName: list.provider,
        PublisherName: list.provider,
        ResourceId: `account/${account}`,
        ResourceName: invoice.name,
        ResourceType: "Account",
        ServiceCategory: service.category,
        ServiceName: service.name,
        ServiceProviderName: list.provider,
        ServiceSubcategory: service.subcategory,
        SkuId: line.unit,
        SkuMeter: service.meter,
        SkuPriceDetails: null,
        SkuPriceId: null,
        SubAccountId: null,
        SubAccountName: null,
        x_Level: "account",
        x_Unit: line.unit,
        x_CuRollup: report.options.cuRollup,
        x_AccountId: account,
        x_CloudspaceId: null,
        x_MachineId: null,
        x_SampleHours: null,
      });
    }
  }
  return rows;
}

/**
 * Adds the BilledCost (as written) of usage rows charged from hour `at` per account, unit and invoice
 * line (keyed by its start; `starts`: the starts of the lines of each account and unit).
 */
function tally(
  billed: Map<string, Exact>,
  rows: FocusRow[],
  at: number,
  starts: ReadonlyMap<string, number[]>,
): FocusRow[] {
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
 * The FOCUS 1.3 rows of a report, in batches: one row per entity, charged unit and hour
 * (or per entity and unit over the period with `perPeriod`). Each unit is charged at one
 * level so that the rows' BilledCost adds up to the accounts' invoices: SU, TU, VCU, MU,
 * WU and the VMs' PIU per VM; NU and the gateways' PIU per cloud space; CU per VM under
 * `sum`; under `aggregate` the account's own CU is what is billed, split over its VMs by their
 * allocated CU (the statement's showback): rows of the account's CU charge with
 * AllocatedResourceId the VM (FOCUS split cost allocation). Only units with a price and a
 * non-zero quantity have rows. Costs are rounded half-even to `COST_DECIMALS` (what CSV and
 * Parquet write); last, one `Adjustment` row per account and invoice line whose amount differs
 * from the Σ of its rows, so every account's BilledCost adds up to its amount due exactly.
 * `hourly`: the report's hourly lines (e.g. `warehouseHourly(connection, report)`).
 */
export async function* focusRows(
  report: BillingReport,
  hourly: HourlyStream,
  options: FocusOptions = {},
): AsyncGenerator<FocusRow[]> {
  if (!report.prices) throw new UsageError("FOCUS rows are costs: give a price list (the prices option)");
  checkHourlyOf(hourly, report);
  const billingPeriod = { start: isoUtc(report.params.start), end: isoUtc(report.params.end) };
  const levels = ["account", "cloudspace", "machine"] as const;
  const billed = new Map<string, Exact>();
  const starts = lineStarts(report);
  if (options.perPeriod) {
    // where a price changes within the period, rows per part of it (each at one price)
    const parts = report.parts ?? [{ start: report.params.start, end: report.params.end, lines: report.lines }];
    for (const part of parts) {
      const period = { start: isoUtc(part.start), end: isoUtc(part.end) };
      yield tally(
        billed,
        part.lines.flatMap((l) => rowsOf(l, report, period, billingPeriod, part.start)),
        part.start,
        starts,
      );
    }
    yield adjustmentRows(report, billed, billingPeriod);
    return;
  }
  let hour = { epoch: Number.NaN, start: "", end: "" };
  for await (const batch of hourly.lines(levels)) {
    yield tally(
      billed,
      batch.flatMap((l) => {
        if (l.hourEpoch !== hour.epoch)
          hour = { epoch: l.hourEpoch!, start: isoUtc(l.hourEpoch!), end: isoUtc(l.hourEpoch! + 3600) };
        return rowsOf(l, report, hour, billingPeriod, l.hourEpoch!);
      }),
      hour.epoch,
      starts,
    );
  }
  yield adjustmentRows(report, billed, billingPeriod);
}

/**
 * The warnings of a FOCUS file: when the price list's provider and invoice issuer differ, every
 * charge reads as bought through a marketplace or reseller (FOCUS: the issuer is not the provider).
 */
export function focusWarnings(report: BillingReport): Warning[] {
  const list = report.prices;
  if (!list || list.provider === list.invoiceIssuer) return [];
  return [
    {
      code: "MARKETPLACE_CHARGES",
      message: `the price list's provider "${list.provider}" is not its invoice issuer "${list.invoiceIssuer}": in FOCUS every charge then reads as bought through a marketplace or reseller (${list.source ?? "prices"}: give invoiceIssuer only when another party invoices)`,
      details: { provider: list.provider, invoiceIssuer: list.invoiceIssuer },
    },
  ];
}
