import { spawn } from "node:child_process";
import { request } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ingest } from "../../src/store/ingest.js";
import {
  monthPeriod,
  open,
  parseStatementConfig,
  serveDashboard,
  writeDataset,
  type Dashboard,
} from "../../src/index.js";
import { CLI, runCli } from "../helpers/runCli.js";
import { REPO } from "../helpers/shellExamples.js";
import { dashboardFixture, type DashboardFixture } from "./dashboardFixture.js";
import { reportFrom } from "../helpers/billFrom.js";
import { Exact } from "../../src/billing/exact.js";

/** A raw GET (the path sent as written: no URL normalisation), with the Host header and more. */
function get(
  url: string,
  path: string,
  headers: Record<string, string> = {},
  method = "GET",
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path, method, headers: { host: `127.0.0.1:${port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const TOKEN = "a-token-of-more-than-16-characters";
let fixture: DashboardFixture;
let dashboard: Dashboard;
beforeAll(async () => {
  fixture = await dashboardFixture();
  dashboard = await serveDashboard({ db: fixture.db, port: 0, prices: fixture.prices, names: fixture.names });
}, 120_000);
afterAll(async () => {
  await dashboard?.close();
  fixture?.remove();
});

describe("serve: who may ask", () => {
  it("refuses to listen off loopback without a token (library and CLI, exit 2 naming the variable)", async () => {
    await expect(serveDashboard({ db: fixture.db, host: "0.0.0.0", port: 0 })).rejects.toMatchObject({
      code: "SERVE_TOKEN",
    });
    const cli = await runCli(["serve", "--db", fixture.db, "--host", "0.0.0.0", "--port", "0"]);
    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/CLOUDUNITS_SERVE_TOKEN or give --token-file/);
    // a token is never an argument: there is no such flag
    const argv = await runCli(["serve", "--db", fixture.db, "--host", "0.0.0.0", "--port", "0", "--token", TOKEN]);
    expect(argv.code).toBe(2);
    expect(argv.stderr).toMatch(/Unknown argument: token/);
  });

  it("off loopback with a token, answers only requests that carry it (header, or the cookie of /?token=)", async () => {
    const open = await serveDashboard({ db: fixture.db, host: "0.0.0.0", port: 0, token: TOKEN });
    try {
      const url = open.url.replace("0.0.0.0", "127.0.0.1");
      expect((await get(url, "/quality")).status).toBe(401);
      expect((await get(url, "/assets/dashboard.js")).status).toBe(401);
      expect((await get(url, "/quality", { authorization: "Bearer not-the-token-at-all-no" })).status).toBe(401);
      expect((await get(url, "/quality", { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
      const login = await get(url, `/quality?token=${TOKEN}`);
      expect(login.status).toBe(303);
      expect(login.headers.location).toBe("/quality");
      const cookie = String(login.headers["set-cookie"]).split(";")[0]!;
      expect(String(login.headers["set-cookie"])).toMatch(/HttpOnly; SameSite=Strict/);
      expect((await get(url, "/quality", { cookie })).status).toBe(200);
      // the redirect stays on the dashboard's own pages: never to another site (an open redirect)
      for (const [path, location] of [
        [`/.//evil.example/?token=${TOKEN}`, "/"],
        [`//evil.example/?token=${TOKEN}`, "/"],
        [`/\\evil.example/?token=${TOKEN}`, "/"],
        [`/no/such/page?token=${TOKEN}`, "/"],
        [`/account/1?month=2026-10&token=${TOKEN}`, "/account/1?month=2026-10"],
      ]) {
        const answer = await get(url, path!);
        expect([path, answer.status, answer.headers.location]).toEqual([path, 303, location]);
      }
      // a cookie that is no encoding of anything is no token (it was an internal error)
      expect((await get(url, "/quality", { cookie: "cloudunits_token=%zz" })).status).toBe(401);
    } finally {
      await open.close();
    }
  });

  it("refuses a token shorter than 16 characters (--token-file)", async () => {
    const file = join(fixture.dir, "token");
    writeFileSync(file, "short\n");
    const short = await runCli(["serve", "--db", fixture.db, "--host", "0.0.0.0", "--port", "0", "--token-file", file]);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/too short/);
  });

  it("on loopback, answers only requests addressed to this machine (no DNS rebinding)", async () => {
    expect((await get(dashboard.url, "/quality", { host: "evil.example:80" })).status).toBe(403);
    expect((await get(dashboard.url, "/quality", { host: "localhost" })).status).toBe(200);
  });
});

describe("serve: nothing outside its routes", () => {
  const PATHS = [
    "/../../../../etc/passwd",
    "/assets/../../package.json",
    "/assets/..%2f..%2fpackage.json",
    "/assets/%2e%2e/%2e%2e/package.json",
    "/assets/",
    "/assets",
    "/assets/uPlot.iife.min.js/",
    "/src/",
    "/node_modules/uplot/package.json",
    "/package.json",
    "//etc/passwd",
    "/account/1/../../package.json",
    "/account/1/statement.csv",
    "/account/abc",
    "/machine/",
    "/.git/config",
    "/docs/",
  ];
  for (const path of PATHS) {
    it(`GET ${path}: 404, no file`, async () => {
      const answer = await get(dashboard.url, path);
      expect([404, 400]).toContain(answer.status);
      const text = answer.body.toString();
      expect(text).not.toMatch(/root:|"name": "cloudunits"|\[core\]|Index of/);
    });
  }

  it("answers GET and HEAD only; its assets are the bundled uPlot and its own", async () => {
    expect((await get(dashboard.url, "/", {}, "POST")).status).toBe(405);
    expect((await get(dashboard.url, "/", {}, "DELETE")).status).toBe(405);
    const head = await get(dashboard.url, "/quality", {}, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const uplot = await get(dashboard.url, "/assets/uPlot.iife.min.js");
    expect(uplot.status).toBe(200);
    expect(uplot.body.toString()).toMatch(/uPlot/);
    const page = await get(dashboard.url, "/");
    expect(page.headers["content-security-policy"]).toMatch(/script-src 'self'/);
    expect(page.body.toString()).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"\s]*\.(js|css)/);
  });

  it("an unknown account, machine or cloud space is a 404 naming it, never a page of zeros; a bad month is a 400", async () => {
    const account = await get(dashboard.url, "/account/999");
    expect(account.status).toBe(404);
    expect(account.body.toString()).toContain("no account 999 in the warehouse");
    expect((await get(dashboard.url, "/machine/999999")).status).toBe(404);
    expect((await get(dashboard.url, "/cloudspace/999999")).status).toBe(404);
    expect((await get(dashboard.url, "/?month=2026-13")).status).toBe(400);
  });

  it("a month the warehouse (or the machine) holds no hour of is a 404 naming the months held, never another month's page", async () => {
    const machine = Number(
      /href="\/machine\/(\d+)\?/.exec((await get(dashboard.url, "/account/1?month=2026-10")).body.toString())![1],
    );
    for (const path of [
      "/?month=2025-01",
      "/account/1?month=2025-01",
      "/account/1/statement.xlsx?month=2026-12",
      `/machine/${machine}?month=2025-01`,
    ]) {
      const answer = await get(dashboard.url, path);
      expect([path, answer.status]).toEqual([path, 404]);
      expect(answer.body.toString()).toMatch(
        /no hour of 20\d\d-\d\d in (the warehouse|the samples of machine \d+): it holds the months 2026-10 to 2026-11/,
      );
    }
  });

  it("a running month's account page reads as the month to date, a draft: never as the whole month", async () => {
    const running = (await get(dashboard.url, "/account/1?month=2026-11")).body.toString();
    const invoice = /<h2 id="invoice-heading">([\s\S]*?)<\/table>/.exec(running)![0];
    expect(invoice).toContain("Invoice so far <small>a draft, month to date: to 2026-11-10T00:00:00Z</small>");
    expect(invoice).not.toMatch(/2026-11-30|30 Nov/);
    expect(invoice).toContain("2026-11-01 to 2026-11-09"); // the hours held
    expect(invoice).toContain("Amount due so far (the sum of the lines; a draft, month to date)");
    expect(running).toContain("Statement so far (XLSX, month to date)");
    // the amount is the bill of the hours held
    const store = await open({ db: fixture.db });
    try {
      const report = await reportFrom(
        store.connection,
        { ...monthPeriod("2026-11"), accountId: 1 },
        { names: fixture.names },
        { prices: fixture.prices },
      );
      expect(invoice).toContain(`id="amount-due">${report.invoices![0]!.amountDue.toFixed(2)}<`);
    } finally {
      store.close();
    }
    // a month held to its end reads as before
    const ended = (await get(dashboard.url, "/account/1?month=2026-10")).body.toString();
    expect(ended).toContain('<h2 id="invoice-heading">Invoice</h2>');
    expect(ended).toContain("2026-10-01 to 2026-10-31");
  });
});

describe("serve: words", () => {
  it("a machine that never stopped, and a cloud space always with a machine running, say so in words (not 'No hour not running')", async () => {
    const store = await open({ db: fixture.db });
    let machine: number;
    let cloudspace: number;
    try {
      const first = async (sql: string) =>
        Number((await store.connection.runAndReadAll(sql, monthPeriod("2026-10"))).getRows()[0]![0]);
      machine = await first(
        "SELECT min(machine_id) FROM (SELECT machine_id FROM machines WHERE type = 'vm' AND hour_epoch >= $start AND hour_epoch < $end GROUP BY machine_id HAVING bool_and(status = 'RUNNING'))",
      );
      cloudspace = await first(
        "SELECT min(cloudspace_id) FROM (SELECT cloudspace_id FROM (SELECT cloudspace_id, hour_epoch, bool_or(status = 'RUNNING') AS up FROM machines WHERE type = 'vm' AND hour_epoch >= $start AND hour_epoch < $end GROUP BY ALL) GROUP BY cloudspace_id HAVING bool_and(up))",
      );
    } finally {
      store.close();
    }
    expect((await get(dashboard.url, `/machine/${machine}?month=2026-10`)).body.toString()).toContain(
      '<p class="note" id="halted">Running in every hour of 2026-10 it has a sample for.</p>',
    );
    expect((await get(dashboard.url, `/cloudspace/${cloudspace}?month=2026-10`)).body.toString()).toContain(
      '<p class="note" id="halted">A machine running in every hour of 2026-10 the cloud space has a sample for.</p>',
    );
  });
});

describe("serve: downloads", () => {
  it("an account's statement workbook holds that account and no other", async () => {
    const answer = await get(dashboard.url, "/account/2/statement.xlsx?month=2026-10");
    expect(answer.status).toBe(200);
    expect(answer.headers["content-disposition"]).toBe('attachment; filename="account-2-account-2-name-2026-10.xlsx"');
    const { default: ExcelJS } = await import("exceljs");
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(answer.body as unknown as ArrayBuffer);
    const text: string[] = [];
    workbook.eachSheet((sheet) => sheet.eachRow((row) => row.eachCell((cell) => text.push(String(cell.text)))));
    const all = text.join("\n");
    expect(all).toContain("account 2 name");
    expect(all).not.toMatch(/account [13] name/);
    // the amount due is the library's
    const store = await open({ db: fixture.db });
    try {
      const report = await reportFrom(
        store.connection,
        { ...monthPeriod("2026-10"), accountId: 2 },
        { names: fixture.names },
        { prices: fixture.prices },
      );
      expect(all).toContain(report.invoices![0]!.amountDue.toFixed(2));
    } finally {
      store.close();
    }
  });
});

describe("serve: no request ends it", () => {
  it(
    "an account named in Chinese, Greek or Cyrillic downloads its statement under its name (RFC 6266), and the server goes on (it exited 1)",
    { timeout: 120_000 },
    async () => {
      const names = join(fixture.dir, "names-scripts.csv");
      writeFileSync(names, "kind,id,name\naccount,1,北京云计算\naccount,2,Ελληνικά Νέφη\naccount,3,Облако Сибирь\n");
      const serve = spawn(
        process.execPath,
        [
          CLI,
          "serve",
          "--db",
          fixture.db,
          "--port",
          "0",
          "--names",
          names,
          "--prices",
          join(REPO, "examples/prices.yaml"),
        ],
        { env: { ...process.env, CI: "1" } },
      );
      try {
        const url = await new Promise<string>((resolve, reject) => {
          serve.stdout.on("data", (chunk: Buffer) => {
            const m = /on (http:\/\/\S+\/)/.exec(chunk.toString());
            if (m) resolve(m[1]!);
          });
          serve.once("exit", (code) => reject(new Error(`serve exited ${code}`)));
        });
        for (const [id, slug] of [
          [1, "北京云计算"],
          [2, "ελληνικά-νέφη"],
          [3, "облако-сибирь"],
        ] as const) {
          const answer = await get(url, `/account/${id}/statement.xlsx?month=2026-10`);
          expect(answer.status).toBe(200);
          const disposition = String(answer.headers["content-disposition"]);
          const fallback = /filename="([^"]*)"/.exec(disposition)![1]!;
          expect(fallback).toMatch(/^[\x20-\x7e]+$/);
          expect(decodeURIComponent(/filename\*=UTF-8''(\S+)$/.exec(disposition)![1]!)).toBe(
            `account-${id}-${slug}-2026-10.xlsx`,
          );
        }
        expect((await get(url, "/quality")).status).toBe(200);
        expect(serve.exitCode).toBe(null);
      } finally {
        serve.kill("SIGTERM");
      }
    },
  );
});

describe("serve: many requests at once", () => {
  /** A GET from a client at `from` (an address of 127.0.0.0/8: another client), with the time it was answered. */
  const from = (address: string, url: string, path: string) =>
    new Promise<{ status: number; body: string; at: number }>((resolve, reject) => {
      const { port } = new URL(url);
      const req = request(
        { host: "127.0.0.1", port, path, localAddress: address, agent: false, headers: { host: `127.0.0.1:${port}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString(), at: Date.now() }),
          );
        },
      );
      req.on("error", reject);
      req.end();
    });

  it(
    "400 pages of unknown machines at once answer 404 from the list of what is held, computing nothing: another client's page is not held up",
    { timeout: 120_000 },
    async () => {
      const served = await serveDashboard({ db: fixture.db, port: 0, prices: fixture.prices, precompute: false });
      try {
        await served.ready;
        const machine = /href="\/machine\/(\d+)\?/.exec(
          (await from("127.0.0.1", served.url, "/account/2?month=2026-10")).body,
        )![1];
        const began = Date.now();
        const flood = Array.from({ length: 400 }, (_, i) =>
          from("127.0.0.2", served.url, `/machine/${900_000 + i}?month=2026-10`),
        );
        const normal = await from("127.0.0.1", served.url, `/machine/${machine}?month=2026-10`);
        const answers = await Promise.all(flood);
        expect(normal.status).toBe(200);
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 404));
        expect(answers[7]!.body).toContain("no machine 900007 in the warehouse");
        // each unknown page was computed one at a time before (400 openings of the warehouse: a page waited 56 s)
        expect(Math.max(...answers.map((a) => a.at)) - began).toBeLessThan(10_000);
      } finally {
        await served.close();
      }
    },
  );

  it(
    "a client asking for many pages at once gets 8 computed and 429 for the rest; another client's page goes ahead of its queue",
    { timeout: 180_000 },
    async () => {
      const served = await serveDashboard({ db: fixture.db, port: 0, prices: fixture.prices, precompute: false });
      try {
        await served.ready;
        const ids: string[] = [];
        for (const account of [1, 2])
          ids.push(
            ...[
              ...(await from("127.0.0.1", served.url, `/account/${account}?month=2026-10`)).body.matchAll(
                /href="\/machine\/(\d+)\?/g,
              ),
            ].map((m) => m[1]!),
          );
        const pages = [...new Set(ids)].map((id) => `/machine/${id}?month=2026-10`).slice(0, 12);
        expect(pages).toHaveLength(12);
        const greedy = pages.map((path) => from("127.0.0.2", served.url, path));
        await new Promise((resolve) => setTimeout(resolve, 200)); // its pages are queued
        const other = await from("127.0.0.1", served.url, "/quality");
        const answers = await Promise.all(greedy);
        const computed = answers.filter((a) => a.status === 200);
        expect(computed.length).toBe(8);
        expect(answers.filter((a) => a.status === 429).map((a) => a.body)).toEqual(
          Array(4).fill(expect.stringContaining("this client has 8 pages being computed or waiting already")),
        );
        expect(other.status).toBe(200);
        expect(other.at).toBeLessThan(Math.max(...computed.map((a) => a.at))); // its turn came before the greedy client's queue was done
      } finally {
        await served.close();
      }
    },
  );
});

describe("serve: statements as PDF", () => {
  it("with a statement config, the account page offers its PDF statement (a draft); without one, none", async () => {
    const config = parseStatementConfig({
      issuer: {
        legalName: "Nordlicht Cloud Services GmbH",
        address: ["Hafenstraße 12", "Hamburg"],
        tax: { category: "S", ratePercent: 19 },
      },
      numbering: { pattern: "INV-{yyyy}-{seq:05}" },
    });
    const withPdf = await serveDashboard({
      db: fixture.db,
      port: 0,
      prices: fixture.prices,
      names: fixture.names,
      statement: config,
    });
    try {
      const page = (await get(withPdf.url, "/account/1?month=2026-10")).body.toString();
      expect(page).toContain('href="/account/1/statement.pdf?month=2026-10"');
      // the taxes known, the amount due is the gross, as on the PDF: net + 19% of it, rounded half-even to the cent
      const store = await open({ db: fixture.db });
      let net: string;
      try {
        net = (
          await reportFrom(
            store.connection,
            { ...monthPeriod("2026-10"), accountId: 1 },
            { names: fixture.names },
            { prices: fixture.prices },
          )
        ).invoices![0]!.amountDue.toFixed(2);
      } finally {
        store.close();
      }
      const tax = Exact.parse(net)!.mul(Exact.of(19, 100)).toFixed(2);
      const gross = Exact.parse(net)!.add(Exact.parse(tax)!).toFixed(2);
      const shown = (amount: string) => Number(amount).toLocaleString("en-US", { minimumFractionDigits: 2 });
      expect(page).toContain(`id="net">${shown(net)}<`);
      expect(page).toContain(`<td colspan="4">VAT 19% on ${shown(net)}</td><td class="num">${shown(tax)}<`);
      expect(page).toContain(
        `<td colspan="4">Amount due (tax included; a draft, not issued)</td><td class="num" id="amount-due">${shown(gross)}<`,
      );
      expect(/id="account-amount-due">.*?<div class="value">(.*?)<\/div>/s.exec(page)![1]).toBe(`${shown(gross)} EUR`);
      // the overview's sums of the lines are then named net, never an amount due
      const overview = (await get(withPdf.url, "/?month=2026-10")).body.toString();
      expect(overview).toContain('<div class="label">Net amount (before tax), 2026-10</div>');
      expect(overview).toContain("Total: the sum of the accounts' net amounts");
      expect(overview).not.toMatch(/amount due/i);
      const pdf = await get(withPdf.url, "/account/1/statement.pdf?month=2026-10");
      expect(pdf.status).toBe(200);
      expect(pdf.headers["content-type"]).toBe("application/pdf");
      expect(pdf.body.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    } finally {
      await withPdf.close();
    }
    expect((await get(dashboard.url, "/account/1?month=2026-10")).body.toString()).not.toContain("statement.pdf");
    expect((await get(dashboard.url, "/?month=2026-10")).body.toString()).toContain(
      '<div class="label">Amount due, 2026-10</div>',
    );
    expect((await get(dashboard.url, "/account/1/statement.pdf?month=2026-10")).status).toBe(404);
  });
});

describe("serve: the warehouse under a running sync", () => {
  it(
    "holds no lock between pages (an ingest writes meanwhile); answers the page kept, marked stale, while it computes the new one",
    { timeout: 300_000 },
    async () => {
      await dashboard.ready; // the pages computed at start: nothing is held after them
      // a writer while the dashboard runs: a fourth account's first day
      const zip = join(fixture.dir, "more.zip");
      await writeDataset({
        out: zip,
        accounts: 1,
        firstAccountId: 4,
        spaces: 1,
        machines: 2,
        hours: 24,
        start: monthPeriod("2026-10").start,
        seed: 3,
      });
      await ingest([zip], { db: fixture.db, waitSeconds: 0 }); // no waiting: the dashboard must not hold the file
      // the page kept is answered at once, saying that it is being computed again; then the new one.
      // The earlier month's overview was never asked for: it was computed at start, as the latest's was
      const meanwhile = (await get(dashboard.url, "/?month=2026-10")).body.toString();
      expect(meanwhile).toContain('id="stale"');
      expect(meanwhile).not.toContain('href="/account/4?');
      // the latest month's account pages were computed at start, unasked: kept, they are answered at once too
      const account = (await get(dashboard.url, "/account/1?month=2026-11")).body.toString();
      expect(account).toContain('id="stale"');
      let after = meanwhile;
      for (let i = 0; i < 240 && after.includes('id="stale"'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        after = (await get(dashboard.url, "/?month=2026-10")).body.toString();
      }
      expect(after).not.toContain('id="stale"');
      expect(after).toContain('href="/account/4?month=2026-10"');
      const store = await open({ db: fixture.db });
      try {
        const report = await reportFrom(store.connection, monthPeriod("2026-10"), {}, { prices: fixture.prices });
        expect(after).toContain(
          `id="accounts-total">${Number(report.amountDue!.toFixed(2)).toLocaleString("en-US", { minimumFractionDigits: 2 })}<`,
        );
      } finally {
        store.close();
      }
    },
  );
});
