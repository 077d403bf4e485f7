// Every account's invoice of a month, as CSV on stdout: one row per invoice line, then the amount due.
//
//   node month-invoices.js INPUT|warehouse.duckdb PRICES MONTH     e.g. october.zip prices.yaml 2026-10
import { loadPrices, open } from "cloudunits";

const [input, pricesFile, month] = process.argv.slice(2);
if (input === undefined || pricesFile === undefined || month === undefined) {
  console.error("usage: month-invoices INPUT|FILE.duckdb PRICES YYYY-MM");
  process.exit(2);
}

/** A CSV field: quoted when it holds a comma, a quote or a line break. */
const field = (value: string | number): string => {
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

const prices = await loadPrices(pricesFile);
const store = await open(input.endsWith(".duckdb") ? { db: input } : [input]);
try {
  const rows = [["account_id", "account_name", "unit", "quantity", "quantity_unit", "unit_price", "price_unit", "amount", "currency"]];
  for (const invoice of await store.invoices({ month }, prices)) {
    for (const line of invoice.lines) {
      rows.push([String(invoice.accountId), invoice.name, line.unit, String(line.quantity), line.quantityUnit, line.unitPrice, line.priceUnit,
        line.amount.toFixed(invoice.decimals), invoice.currency]);
    }
    rows.push([String(invoice.accountId), invoice.name, "amount due", "", "", "", "", invoice.amountDue.toFixed(invoice.decimals), invoice.currency]);
  }
  process.stdout.write(rows.map((row) => row.map(field).join(",")).join("\n") + "\n");
} finally {
  store.close();
}
