/** The dashboard's style sheet (`/assets/dashboard.css`). */
export const DASHBOARD_STYLE = `
:root { --ink: #1d2330; --muted: #5b6472; --line: #dde2ea; --bg: #f5f7fa; --card: #fff; --accent: #1f5fbf; --warn: #a15c00; --bad: #b3261e; --ok: #1e7a3c; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
nav { display: flex; gap: 1.4em; align-items: baseline; padding: .8em 2em; background: #17233a; }
nav a { color: #d6e2f5; text-decoration: none; font-weight: 500; }
nav a:hover { color: #fff; text-decoration: underline; }
nav a.brand { color: #fff; font-weight: 700; font-size: 1.1em; margin-right: 1em; }
main { max-width: 1320px; margin: 0 auto; padding: 1.2em 2em 2em; }
footer { max-width: 1320px; margin: 0 auto; padding: 0 2em 2em; color: var(--muted); font-size: .9em; }
h1 { font-size: 1.55em; margin: .2em 0 .1em; }
h1 small { font-weight: 400; color: var(--muted); font-size: .7em; margin-left: .4em; }
h2 { font-size: 1.15em; margin: 1.6em 0 .5em; }
p.lead { color: var(--muted); margin: .2em 0 1em; }
a { color: var(--accent); }
.crumbs { color: var(--muted); margin: 0 0 .3em; }
.head { display: flex; justify-content: space-between; align-items: flex-end; gap: 1em; flex-wrap: wrap; }
form.picker select { font: inherit; padding: .25em .4em; border: 1px solid var(--line); border-radius: 4px; background: #fff; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(180px, 1fr)); gap: .8em; margin: 1em 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .8em 1em; }
.card .label { color: var(--muted); font-size: .85em; }
.cards.amounts { grid-template-columns: repeat(auto-fill, minmax(min(300px, 100%), 1fr)); margin-bottom: 0; }
.card .value { font-size: 1.45em; font-weight: 600; font-variant-numeric: tabular-nums; margin-top: .1em; white-space: nowrap; }
.card .value small { font-size: .6em; font-weight: 400; color: var(--muted); }
.card .sub { color: var(--muted); font-size: .8em; margin-top: .25em; }
.card.forecast { border-style: dashed; background: #fbfcfe; }
.card.forecast .value { color: #3d4a5e; }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(560px, 100%), 1fr)); gap: 1em; }
.charts.wide { grid-template-columns: 1fr; }
section.chart { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: .7em 1em .4em; min-width: 0; }
section.chart h3 { font-size: 1em; margin: 0 0 .3em; }
section.chart h3 small { font-weight: 400; color: var(--muted); margin-left: .3em; }
.uplot .u-legend { font-size: 12.5px; text-align: left; }
.uplot .u-legend .u-marker { width: 12px; height: 12px; }
table { border-collapse: collapse; width: 100%; background: var(--card); border: 1px solid var(--line); border-radius: 8px; font-variant-numeric: tabular-nums; }
th, td { padding: .42em .7em; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: #eef2f7; font-weight: 600; white-space: nowrap; }
thead th { position: sticky; top: 0; z-index: 1; box-shadow: 0 1px 0 var(--line); } /* also the sort mark's containing block */
th small { display: block; font-weight: 400; color: var(--muted); font-size: .82em; }
table.sortable th { cursor: pointer; user-select: none; padding-right: 1.3em; }
table.sortable th[aria-sort]::after { position: absolute; right: .35em; top: .55em; font-size: .75em; }
table.sortable th[aria-sort="ascending"]::after { content: "▲"; }
table.sortable th[aria-sort="descending"]::after { content: "▼"; }
td.num, th.num { text-align: right; }
tbody tr:hover { background: #f3f7fd; }
tfoot td { font-weight: 600; background: #f7f9fc; }
tr.sub td { color: var(--muted); }
.tag { display: inline-block; padding: 0 .45em; border-radius: 3px; font-size: .82em; background: #eef2f7; color: var(--muted); }
.ok { color: var(--ok); }
.warn { color: var(--warn); }
.bad { color: var(--bad); }
.downloads a { display: inline-block; margin-right: .6em; padding: .35em .8em; border: 1px solid var(--accent); border-radius: 5px; text-decoration: none; }
.downloads a:hover { background: var(--accent); color: #fff; }
.note { color: var(--muted); font-size: .9em; }
.empty { color: var(--muted); font-style: italic; }
p.stale { background: #fff4e0; border: 1px solid #f0c98a; border-radius: 6px; padding: .5em .9em; color: #7a4b00; }
ul.compact { margin: .2em 0; padding-left: 1.2em; }
h1, p, li { overflow-wrap: anywhere; }
td.num { white-space: nowrap; }
/* a phone's width: no page scrolls sideways; a wide table scrolls in its own box */
@media (max-width: 760px) {
  nav { padding: .7em 1em; gap: 1em; flex-wrap: wrap; }
  main { padding: 1em .8em 1.5em; }
  footer { padding: 0 .8em 1.5em; }
  .table-wrap { overflow-x: auto; max-width: 100%; }
  .card .value { white-space: normal; }
  section.chart { padding: .6em .5em .3em; }
}
`;
