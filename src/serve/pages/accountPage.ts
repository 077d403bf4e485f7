import { isoUtc } from "../../base/time.js";
import { shownQuantity } from "../../invoices/document/invoiceQuantity.js";
import { groupThousands, taxLabel } from "../../invoices/document/documentWords.js";
import type { AccountData, AccountRow } from "../accountData.js";
import { esc, money, monthPicker, num, page, table, when, withMonth, type Column } from "./html.js";
import { chartBoxes, dailyCharts, footerOf, SHOWN_UNITS } from "./overviewPage.js";

/** A row's link: a machine's page, a gateway's tag, or a cloud space's page, of `month`. */
function rowLink(row: AccountRow, month: string): string {
  if (row.level === "machine")
    return `<a href="${esc(withMonth(`/machine/${row.machineId}`, month))}">${row.machineId}</a>`;
  if (row.level === "gateway") return '<span class="tag">gateway</span>';
  return `<a href="${esc(withMonth(`/cloudspace/${row.cloudspaceId}`, month))}">${row.cloudspaceId}</a>`;
}

/**
 * The units columns of the cloud spaces' and machines' tables (`own`: what their NU counts), and the cost with a
 * price list.
 */
function unitColumns(data: AccountData, own: string): Column<AccountRow>[] {
  return [
    {
      heading: "CU own",
      note: "CU-hours",
      numeric: true,
      cell: (r) => ({ html: num(r.quantities.CU), sort: r.quantities.CU ?? 0 }),
    },
    {
      heading: "CU allocated",
      note: "CU-hours",
      numeric: true,
      cell: (r) => ({ html: num(r.cuAllocated), sort: r.cuAllocated }),
    },
    ...SHOWN_UNITS.filter((u) => u.unit !== "CU").map(({ unit, of, digits }): Column<AccountRow> => ({
      heading: unit === "NU" ? `NU ${own}` : unit,
      note: of,
      numeric: true,
      cell: (r) => ({ html: num(r.quantities[unit], digits), sort: r.quantities[unit] ?? 0 }),
    })),
    ...(data.invoice
      ? [
          {
            heading: "Cost",
            note: `${data.invoice.currency}, share of the amount due`,
            numeric: true,
            cell: (r: AccountRow) => ({ html: esc(money(r.cost, undefined)), sort: Number(r.cost ?? 0) }),
          },
        ]
      : []),
  ];
}

/** The account's cloud spaces, with their units and costs. */
function cloudspacesTable(data: AccountData): string {
  const month = data.month.month;
  return table(
    "cloudspaces",
    [
      { heading: "Cloud space", numeric: true, cell: (r) => ({ html: rowLink(r, month), sort: r.cloudspaceId }) },
      { heading: "Name", cell: (r) => ({ html: esc(r.name) }) },
      { heading: "Hours", numeric: true, cell: (r) => ({ html: String(r.sampleHours), sort: r.sampleHours }) },
      ...unitColumns(data, "(all)"),
    ],
    data.cloudspaces,
  );
}

/** The account's machines and gateways, each with its cloud space, units and cost. */
function machinesTable(data: AccountData): string {
  const month = data.month.month;
  const spaceName = new Map(data.cloudspaces.map((c) => [c.cloudspaceId, c.name]));
  return table(
    "machines",
    [
      { heading: "Machine", numeric: true, cell: (r) => ({ html: rowLink(r, month), sort: r.machineId ?? -1 }) },
      { heading: "Name", cell: (r) => ({ html: esc(r.level === "gateway" ? "gateway" : r.name) }) },
      {
        heading: "Cloud space",
        cell: (r) => ({
          html: `${r.cloudspaceId}${spaceName.get(r.cloudspaceId) ? ` <span class="note">${esc(spaceName.get(r.cloudspaceId))}</span>` : ""}`,
          sort: r.cloudspaceId,
        }),
      },
      { heading: "Hours", numeric: true, cell: (r) => ({ html: String(r.sampleHours), sort: r.sampleHours }) },
      ...unitColumns(data, "(own NICs)"),
    ],
    data.machines,
  );
}

/** The invoice's lines and its totals (`soFar`: "" or " so far"), or how to see them without a price list. */
function invoiceTable(data: AccountData, soFar: string): string {
  const invoice = data.invoice;
  if (!invoice)
    return '<p class="note">Start the dashboard with <code>--prices FILE</code> to see the invoice and costs.</p>';
  return table(
    "invoice",
    [
      { heading: "Unit", cell: (l) => ({ html: esc(l.unit) }) },
      { heading: "Period", cell: (l) => ({ html: esc(pricePeriodText(l.start, l.end)), sort: l.start }) },
      {
        heading: "Quantity",
        numeric: true,
        cell: (l) => ({
          html: `${esc(groupThousands(shownQuantity(l, invoice.decimals)))} <span class="note">${esc(l.quantityUnit)}</span>`,
          sort: l.quantity,
        }),
      },
      {
        heading: "Unit price",
        numeric: true,
        cell: (l) => ({
          html: `${esc(l.unitPrice)} <span class="note">per ${esc(l.priceUnit)}</span>`,
          sort: Number(l.unitPrice),
        }),
      },
      {
        heading: "Amount",
        note: invoice.currency,
        numeric: true,
        cell: (l) => ({
          html: esc(money(l.amount.toFixed(invoice.decimals), undefined)),
          sort: Number(l.amount.toFixed(invoice.decimals)),
        }),
      },
    ],
    invoice.lines,
    `<tfoot>${totalRows(data, soFar, data.month.heldUntil === null ? "" : "; a draft, month to date")}</tfoot>`,
  );
}

/** The cards: the account's units of the month, and its amount due with a price list. */
function accountCards(data: AccountData): string {
  const month = data.month.month;
  const invoice = data.invoice;
  const units = SHOWN_UNITS.map(
    ({ unit, of, digits }) =>
      `<div class="card" id="account-${unit}"><div class="label">${esc(unit)}, ${esc(month)}</div><div class="value">${esc(num(data.account.quantities[unit], digits))} <small>${esc(of)}</small></div></div>`,
  ).join("");
  if (!invoice) return units;
  const amount = money(
    data.totals?.gross ?? invoice.amountDue.toFixed(invoice.decimals),
    data.totals?.currency ?? invoice.currency,
  );
  return (
    units +
    `<div class="card" id="account-amount-due"><div class="label">Amount due${data.month.heldUntil === null ? "" : " so far (month to date)"}, ${esc(month)}</div>` +
    `<div class="value">${esc(amount)}</div>${amountNote(data)}</div>`
  );
}

/** The account page: its invoice, its cloud spaces and machines (own and allocated units, cost), its units per day, downloads. */
export function accountPage(data: AccountData, downloads: { pdf: boolean }): string {
  const month = data.month.month;
  // a month that runs past the hours held is billed to date: a draft, never read as the whole month
  const toDate = data.month.heldUntil;
  const soFar = toDate === null ? "" : " so far";
  const base = `/account/${data.accountId}`;
  const charts = dailyCharts("account-day", data.days);
  const query = `?month=${encodeURIComponent(month)}`;
  const links = `<p class="downloads"><a href="${esc(`${base}/statement.xlsx${query}`)}" download>Statement${soFar} (XLSX${toDate === null ? "" : ", month to date"})</a>${documentLinks(data, downloads, base, query)}</p>`;
  const lead =
    toDate === null
      ? `${month}: the account's bill, its cloud spaces and machines, and its units per day (UTC).`
      : `${month}, month to date: the hours held run to ${when(toDate)}, so this is the account's bill so far (a draft, not the month's), its cloud spaces and machines, and its units per day (UTC).`;
  const body = `
<p class="crumbs"><a href="${esc(withMonth("/", month))}">Overview</a> › account ${data.accountId}</p>
<div class="head"><div><h1>Account ${data.accountId}${data.name ? ` <small>${esc(data.name)}</small>` : ""}</h1>
<p class="lead">${esc(lead)}</p></div>
${monthPicker(data.months, month, base)}</div>
<div class="cards">${accountCards(data)}</div>
${links}
<h2 id="invoice-heading">${toDate === null ? "Invoice" : `Invoice so far <small>a draft, month to date: to ${esc(when(toDate))}</small>`}</h2>
${invoiceTable(data, soFar)}
<h2>Units per day</h2>
${chartBoxes(charts)}
<h2>Cloud spaces</h2>
${cloudspacesTable(data)}
<h2>Machines and gateways</h2>
${machinesTable(data)}
<p class="note">Own CU: the CU rule applied to the entity's own totals each hour. Allocated CU: the account's CU shared out hour by hour in proportion to own CU; the allocated CU and the costs add up to the account's CU and amount due.</p>`;
  return page(`Account ${data.accountId} ${month}`, body, charts, footerOf(data.report.generatedAtMs));
}

/**
 * The document links: an issued month's invoice as it was issued (its PDF and e-invoice, from
 * the register), never a draft beside it that a reader could take for it; else, with a
 * statement config, the draft PDF of the figures now.
 */
function documentLinks(data: AccountData, downloads: { pdf: boolean }, base: string, query: string): string {
  const issued = data.totals?.issued;
  if (issued) {
    const file = (extension: string, what: string) =>
      issued.files.some((f) => f.endsWith(`.${extension}`))
        ? `<a href="${esc(`${base}/invoice.${extension}${query}`)}" download>Invoice ${esc(issued.number)}, as issued (${what})</a>`
        : "";
    return file("pdf", "PDF") + file("xml", "e-invoice, UBL XML");
  }
  if (!downloads.pdf || !data.invoice) return "";
  const toDate = data.month.heldUntil;
  return `<a href="${esc(`${base}/statement.pdf${query}`)}" download>Statement${toDate === null ? "" : " so far"} (PDF, draft${toDate === null ? "" : ", month to date"})</a>`;
}

/**
 * The foot of the invoice table: with its taxes known, the net, each tax line and the amount due
 * (the gross), those of the issued invoice when there is one (and today's sum of the lines beside
 * them when it differs: the invoice is to be corrected); without, the sum of the lines.
 */
function totalRows(data: AccountData, soFar: string, draft: string): string {
  const invoice = data.invoice!;
  const row = (label: string, amount: string, id?: string) =>
    `<tr><td colspan="4">${esc(label)}</td><td class="num"${id ? ` id="${id}"` : ""}>${esc(money(amount, undefined))}</td></tr>`;
  const lines = invoice.amountDue.toFixed(invoice.decimals);
  const totals = data.totals;
  if (totals === undefined) return row(`Amount due${soFar} (the sum of the lines${draft})`, lines, "amount-due");
  const issued = totals.issued;
  // an invoice issued in another currency than the dashboard's price list gives the lines in: its figures say theirs
  const other = totals.currency === invoice.currency ? "" : `, in ${totals.currency}`;
  if (issued?.customer) return customerTotalRows(data, issued, row, lines, other);
  return [
    row(
      issued ? `Net of invoice ${issued.number}${other}` : `Net${soFar} (the sum of the lines${draft})`,
      totals.net,
      "net",
    ),
    ...totals.taxes.map((t) => row(`${taxLabel(t)}${other}`, t.amount.toJSON())),
    row(
      issued
        ? `Amount due, invoice ${issued.number} issued ${issued.issueDate} (tax included)${other}`
        : `Amount due${soFar} (tax included; a draft, not issued)`,
      totals.gross,
      "amount-due",
    ),
    ...(issued?.credits
      ? [
          row(
            `Credited by ${issued.credits.numbers.join(", ")} (credit notes, tax included)${other}`,
            `-${issued.credits.credited}`,
            "credited",
          ),
          row(`What remains of invoice ${issued.number} (tax included)${other}`, issued.credits.remaining, "remaining"),
        ]
      : []),
    ...(issued && totals.currency === invoice.currency && (totals.linesNet ?? totals.net) !== lines
      ? [
          row(
            `The sum of the lines as the warehouse now gives it, before tax: not the issued net; correct the invoice (cloudunits invoices correct --number ${issued.number})`,
            lines,
            "net-now",
          ),
        ]
      : []),
  ].join("");
}

/**
 * The foot of the invoice table of an account on the invoice of a customer of several accounts:
 * the account's subtotal on it, then the invoice's amount due (all of the customer's accounts),
 * and today's sum of the lines beside the subtotal when it differs.
 */
function customerTotalRows(
  data: AccountData,
  issued: NonNullable<NonNullable<AccountData["totals"]>["issued"]>,
  row: (label: string, amount: string, id?: string) => string,
  lines: string,
  other: string,
): string {
  const customer = issued.customer!;
  const totals = data.totals!;
  const on = `invoice ${issued.number} of customer ${customer.id}`;
  return [
    row(`Subtotal of account ${data.accountId} on ${on}, before tax${other}`, customer.sectionNet, "net"),
    row(
      `Amount due of ${on}, accounts ${customer.accountIds.join(", ")}, issued ${issued.issueDate} (tax included)${other}`,
      totals.gross,
      "amount-due",
    ),
    ...(other === "" && customer.sectionNet !== lines
      ? [
          row(
            `The sum of the lines as the warehouse now gives it, before tax: not the issued subtotal; correct the invoice (cloudunits invoices correct --number ${issued.number})`,
            lines,
            "net-now",
          ),
        ]
      : []),
  ].join("");
}

/** Under the amount due card: its net and tax, and whether it is an issued invoice or a draft. */
function amountNote(data: AccountData): string {
  const t = data.totals;
  if (t === undefined)
    return '<div class="sub">before tax (the dashboard knows taxes from a statement config, --statement FILE)</div>';
  if (t.issued?.customer)
    return `<div class="sub" id="on-invoice">on invoice ${esc(t.issued.number)} of customer ${esc(t.issued.customer.id)} (accounts ${esc(t.issued.customer.accountIds.join(", "))}), issued ${esc(t.issued.issueDate)}: this account's subtotal ${esc(money(t.issued.customer.sectionNet, undefined))} ${esc(t.currency)} before tax; the invoice's net ${esc(money(t.net, undefined))} + tax ${esc(money(t.tax, undefined))}</div>`;
  return `<div class="sub">net ${esc(money(t.net, undefined))} ${esc(t.currency)} + tax ${esc(money(t.tax, undefined))}; ${t.issued ? `invoice ${esc(t.issued.number)}, issued ${esc(t.issued.issueDate)}` : "a draft, not issued"}</div>`;
}

/**
 * A price period in UTC, short enough for a column: whole days as `2026-10-01 to 2026-10-14`
 * (the last day included), else `2026-10-01 00:00 to 02:00` (the end's date when it differs).
 */
function pricePeriodText(start: number, end: number): string {
  const day = 86_400;
  if (start % day === 0 && end % day === 0) {
    const [first, last] = [isoUtc(start).slice(0, 10), isoUtc(end - day).slice(0, 10)];
    return first === last ? first : `${first} to ${last}`;
  }
  const [startDate, startTime] = [isoUtc(start).slice(0, 10), isoUtc(start).slice(11, 16)];
  const [endDate, endTime] = [isoUtc(end).slice(0, 10), isoUtc(end).slice(11, 16)];
  return `${startDate} ${startTime} to ${endDate === startDate ? "" : `${endDate} `}${endTime}`;
}
