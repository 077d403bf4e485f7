import { AGEING, type CustomerReceivables } from "../receivablesData.js";
import { esc, money, page, table } from "./html.js";

/** The receivables page: what each customer owes, per currency, and its ageing by days past due. */
export function receivablesPage(rows: readonly CustomerReceivables[]): string {
  const body =
    rows.length === 0
      ? '<p class="ok" id="receivables-none">Nothing is outstanding: every invoice issued is paid or credited.</p>'
      : table(
          "receivables",
          [
            {
              heading: "Account",
              numeric: true,
              cell: (r) => ({ html: `<a href="/account/${r.accountId}">${r.accountId}</a>`, sort: r.accountId }),
            },
            { heading: "Customer", cell: (r) => ({ html: esc(r.customer) }) },
            { heading: "Invoices", numeric: true, cell: (r) => ({ html: String(r.documents), sort: r.documents }) },
            {
              heading: "Outstanding",
              numeric: true,
              cell: (r) => ({ html: money(r.outstanding, r.currency), sort: Number(r.outstanding) }),
            },
            ...AGEING.map((label, i) => ({
              heading: label === "not yet due" ? "Not yet due" : `${label} days`,
              note: i === 0 ? "" : "past due",
              numeric: true,
              cell: (r: CustomerReceivables) => ({
                html: `<span class="${i >= 2 && Number(r.ageing[i]) > 0 ? "bad" : ""}">${money(r.ageing[i], r.currency)}</span>`,
                sort: Number(r.ageing[i]),
              }),
            })),
          ],
          rows,
        );
  return page(
    "Receivables",
    `
<h1>Receivables</h1>
<p class="lead">What each customer owes on the invoices issued, today: the amount due less credit notes and payments recorded (<code>invoices pay</code>, <code>invoices payments</code>), by days past the due date (UTC). <code>invoices overdue</code> lists the documents.</p>
${body}`,
  );
}
