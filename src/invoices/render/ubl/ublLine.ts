import { periodWords } from "../../../base/readableTime.js";
import { Exact } from "../../../billing/exact.js";
import type { DocumentLine, InvoiceDocument } from "../../document/invoiceDocument.js";
import { isoDate, ublAmount, ublCategory } from "./ublValues.js";
import { xmlText, type XmlNode } from "./xmlText.js";

/** UN/ECE Recommendation 20 code of a quantity's unit: unit-hours are hours (HUR), unit-months months (MON), anything else units (C62). */
export function unitCodeOf(quantityUnit: string): string {
  if (quantityUnit.endsWith("-hours")) return "HUR";
  if (quantityUnit.endsWith("-months")) return "MON";
  return "C62";
}

/**
 * What the line's amount differs from quantity × unit price, when it is more than Peppol's tolerance
 * of 0.02 (PEPPOL-EN16931-R120): only in a currency of fewer than two decimals, where a line is
 * rounded to the whole yen. The difference is the line's rounding, carried as a line charge (the
 * amount rounded up) or allowance (down) of at most half a unit, to 2 decimals.
 */
export function roundingOf(line: DocumentLine): Exact | undefined {
  const quantity = Exact.parse(line.quantity)!;
  const exact = quantity.mul(Exact.parse(line.unitPrice)!);
  const difference = line.net.add(exact.mul(Exact.of(-1n)));
  const abs = difference.num < 0n ? difference.mul(Exact.of(-1n)) : difference;
  return abs.mul(Exact.of(50n)).num > abs.den ? difference : undefined; // |d| > 0.02
}

function roundingCharge(rounding: Exact, currency: string, sign: 1 | -1): XmlNode {
  const signed = sign === 1 ? rounding : rounding.mul(Exact.of(-1n));
  const charge = signed.num > 0n;
  const amount = (charge ? signed : signed.mul(Exact.of(-1n))).toFixed(2);
  return {
    "cbc:ChargeIndicator": charge ? "true" : "false",
    "cbc:AllowanceChargeReason": `Rounding of the line to whole ${currency}`,
    "cbc:Amount": { "@currencyID": currency, "#": amount },
  };
}

/**
 * One InvoiceLine (CreditNoteLine on a credit note, whose quantities and amounts are written
 * positive: the document's kind says they are credited): quantity and its unit code, the line's
 * net amount, its price period as dates, the item's name and tax category, the unit price.
 */
export function ublLine(doc: InvoiceDocument, line: DocumentLine, index: number): XmlNode {
  const credit = doc.kind === "creditNote";
  const sign = credit ? -1 : 1;
  const node: XmlNode = { "cbc:ID": String(index + 1) };
  // a customer's invoice of several accounts: which account's consumption the line is
  const section = line.accountId === undefined ? undefined : doc.sections?.find((x) => x.accountId === line.accountId);
  if (line.accountId !== undefined)
    node["cbc:Note"] = xmlText(`Account ${line.accountId}${section?.name ? ` – ${section.name}` : ""}`);
  node[credit ? "cbc:CreditedQuantity" : "cbc:InvoicedQuantity"] = {
    "@unitCode": unitCodeOf(line.quantityUnit),
    "#": credit ? line.quantity.replace(/^-/, "") : line.quantity,
  };
  node["cbc:LineExtensionAmount"] = ublAmount(line.net, doc.currency, sign);
  node["cac:InvoicePeriod"] = { "cbc:StartDate": isoDate(line.start), "cbc:EndDate": isoDate(line.end - 1) };
  const rounding = roundingOf(line);
  if (rounding) node["cac:AllowanceCharge"] = roundingCharge(rounding, doc.currency, sign);
  const item: XmlNode = {};
  // the price period in words when a price changes within the document's period
  if (line.start !== doc.start || line.end !== doc.end)
    item["cbc:Description"] = `${xmlText(line.description)}, ${periodWords(line.start, line.end)}`;
  item["cbc:Name"] = xmlText(line.description);
  item["cac:ClassifiedTaxCategory"] = ublCategory(line.taxCategory, line.taxRatePercent);
  node["cac:Item"] = item;
  node["cac:Price"] = { "cbc:PriceAmount": { "@currencyID": doc.currency, "#": line.unitPrice } };
  return node;
}
