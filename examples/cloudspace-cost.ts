// What each cloud space cost in a month: its share of its account's invoice (showback), from
// the files as they stream (no database), largest first, as tab-separated text.
//
//   node cloudspace-cost.js INPUT PRICES MONTH     e.g. october.zip prices.yaml 2026-10
import { bill, loadPrices, monthPeriod, type Exact } from "cloudunits";

const [input, pricesFile, month] = process.argv.slice(2);
if (input === undefined || pricesFile === undefined || month === undefined) {
  console.error("usage: cloudspace-cost INPUT PRICES YYYY-MM");
  process.exit(2);
}

const prices = await loadPrices(pricesFile);
const { report } = await bill({ source: [input], period: monthPeriod(month), prices });
const costs: { accountId: number; cloudspaceId: number; cuHours: number; cost: Exact }[] = [];
// report.money[i] is the money of report.lines[i]: a cloud space's is its share of its account's invoice
report.lines.forEach((line, i) => {
  const money = report.money?.[i];
  if (line.level !== "cloudspace" || money === undefined) return;
  // a cloud space line: its ids are numbers, its quantities too (no `!` needed)
  costs.push({ accountId: line.accountId, cloudspaceId: line.cloudspaceId, cuHours: line.quantities.CU, cost: money.amount });
});
// largest first, compared exactly (Exact.compare), then by cloud space
costs.sort((a, b) => b.cost.compare(a.cost) || a.cloudspaceId - b.cloudspaceId);
console.log(["account", "cloudspace", "CU-hours", `cost (${prices.currency})`].join("\t"));
for (const c of costs) console.log([c.accountId, c.cloudspaceId, c.cuHours.toFixed(2), c.cost.toFixed(prices.decimals)].join("\t"));
console.log(["total", "", "", report.amountDue?.toFixed(prices.decimals) ?? "0"].join("\t"));
