/** A hostile service on loopback tries to get secrets out: into messages, or to another origin. */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FetchError, fetchConsumption, writeDataset } from "../../src/internal.js";
import type { FetchAuth, FetchConsumptionOptions } from "../../src/internal.js";
import {
  CONSUMPTION_PATH,
  LOGIN_PATH,
  SECRETS,
  platform,
  sendBytes,
  serversPerTest,
  sessionFetchOptions,
  type FakeServer,
} from "./fakeService.js";

const START = 1790812800; // 2026-10-01T00:00Z
/** A password with every character that an echo escapes: quote, backslash, angle brackets, ampersand, space, slash, non-ASCII. */
const PASSWORD = 'pw"SECRET\\<x> &y/é-9f2';

let dir: string;
let zip7: Buffer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-secrets-"));
  await writeDataset({
    out: join(dir, "7.zip"),
    accounts: 1,
    firstAccountId: 7,
    spaces: 1,
    machines: 1,
    hours: 1,
    start: START,
  });
  zip7 = await readFile(join(dir, "7.zip"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const serve = serversPerTest();

let outCount = 0;
const options = (server: FakeServer, overrides: Partial<FetchConsumptionOptions> = {}) =>
  sessionFetchOptions(server, join(dir, `out-${++outCount}.zip`), { retries: 0, ...overrides });

/** Every text an error carries: message, stack and causes. */
function errorTexts(error: unknown): string {
  const texts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 10; depth++) {
    if (!(current instanceof Error)) {
      texts.push(String(current));
      break;
    }
    texts.push(current.message, current.stack ?? "", JSON.stringify({ ...current }));
    current = current.cause;
  }
  return texts.join("\n");
}

/** The ways an echo may write `secret`, each computed here independently of the code under test. */
function encodings(secret: string): Record<string, string> {
  const html = secret.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  return {
    raw: secret,
    "JSON-escaped": JSON.stringify(secret).slice(1, -1),
    "JSON \\u-escaped": [...secret]
      .map((c) => (/[a-z0-9]/i.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`))
      .join(""),
    "HTML-escaped": html,
    "HTML numeric": [...secret].map((c) => `&#${c.codePointAt(0)};`).join(""),
    "HTML twice": html.replace(/&/g, "&amp;"),
    "URL-encoded": encodeURIComponent(secret),
    "form-encoded": new URLSearchParams({ s: secret }).toString().slice(2),
    "URL-encoded, lower-case hex": encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    "URL-encoded twice": encodeURIComponent(encodeURIComponent(secret)),
    base64: Buffer.from(secret).toString("base64"),
    "base64 of user:password": Buffer.from(`someone:${secret}`).toString("base64"),
  };
}

describe("a login that echoes the password back", () => {
  it.each(Object.entries(encodings(PASSWORD)))("%s: the refusal never shows it", async (_how, echoed) => {
    const server = await serve((_request, response) => {
      response
        .writeHead(401, { "content-type": "application/json" })
        .end(`{"error":"wrong password ${echoed} for user"}`);
    });
    const auth: FetchAuth = { kind: "session", username: SECRETS.username, password: PASSWORD };
    const error = await fetchConsumption(options(server, { auth })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FETCH_AUTH" });
    const texts = errorTexts(error);
    for (const [how, form] of Object.entries(encodings(PASSWORD))) expect(texts, how).not.toContain(form);
    expect((error as Error).message).toContain("wrong password *** for user");
  });
});

describe("what a message quotes of a body", () => {
  it.each([
    {
      what: "a 100 KB page",
      body: Buffer.from(`<html><body>${"Service under maintenance. ".repeat(4000)}</body></html>`),
      shown: /Service under maintenance/,
    },
    {
      what: "a binary body",
      body: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 37) % 256)),
      shown: /binary data \(not shown\)/,
    },
    {
      what: "text with control and direction characters",
      body: Buffer.from("bad\u0007 request\u202e gnol\u200b"),
      shown: /bad request gnol/,
    },
  ])("$what: a short printable excerpt at most", async ({ body, shown }) => {
    const server = await serve(
      platform((_request, response) => response.writeHead(500, { "content-type": "text/html" }).end(body)),
    );
    const error = await fetchConsumption(options(server)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FETCH_HTTP", status: 500 });
    const message = (error as Error).message;
    expect(message).toMatch(shown);
    expect(message.length).toBeLessThan(600);
    expect(message).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\ufffd]/);
  });

  it("a list item's 100 KB id is quoted as an excerpt", async () => {
    const { listAccounts, openSession } = await import("../../src/internal.js");
    const server = await serve(
      platform(() => undefined, {
        "/restmachine/cloudapi/accounts/list": (_request, response) =>
          response
            .writeHead(200, { "content-type": "application/json" })
            .end(JSON.stringify([{ id: "x".repeat(100_000), name: "a" }])),
      }),
    );
    const session = await openSession(
      server.url,
      { kind: "session", username: SECRETS.username, password: SECRETS.password },
      { retries: 0 },
    );
    const error = await listAccounts(session).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FETCH_BAD_LIST" });
    expect((error as Error).message).toMatch(/has no whole-number "id" \(got "x{50,60}…\)/);
    expect((error as Error).message.length).toBeLessThan(400);
  });
});

describe("a redirect to another origin that carries a secret", () => {
  const key = SECRETS.sessionKey;
  const token = SECRETS.token;
  it.each([
    { how: "the key in AuthKey=", auth: "session", location: (to: string) => `${to}/dl?AuthKey=${key}` },
    {
      how: "the key inside next=…authkey%3D…",
      auth: "session",
      location: (to: string) => `${to}/dl?next=${encodeURIComponent(`https://h/x?authkey=${key}`)}`,
    },
    {
      how: "the key encoded twice",
      auth: "session",
      location: (to: string) => `${to}/dl?n=${encodeURIComponent(encodeURIComponent(`authkey=${key}`))}`,
    },
    { how: "the key in the path", auth: "session", location: (to: string) => `${to}/keys/${key}/dl` },
    {
      how: "the key in base64",
      auth: "session",
      location: (to: string) => `${to}/dl?s=${Buffer.from(`k=${key}`).toString("base64url")}`,
    },
    { how: "the bearer token in t=", auth: "jwt", location: (to: string) => `${to}/dl?t=${token}` },
    {
      how: "the password in a query",
      auth: "session",
      location: (to: string) => `${to}/dl?p=${encodeURIComponent(SECRETS.password)}`,
    },
  ])("$how: refused (FETCH_REDIRECT_REFUSED), the other origin never asked", async ({ auth, location }) => {
    const elsewhere = await serve((_request, response) => sendBytes(response, zip7));
    const server = await serve(
      platform((_request, response) => response.writeHead(302, { location: location(elsewhere.url) }).end()),
    );
    const fetchAuth: FetchAuth =
      auth === "jwt"
        ? { kind: "jwt", authUrl: `${server.url}/idp`, clientId: SECRETS.clientId, clientSecret: SECRETS.clientSecret }
        : { kind: "session", username: SECRETS.username, password: SECRETS.password };
    const error = await fetchConsumption(options(server, { auth: fetchAuth })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    expect(error).toMatchObject({ code: "FETCH_REDIRECT_REFUSED" });
    expect((error as Error).message).toContain(
      `redirected to another host (${elsewhere.url}) with a secret of this session in the address`,
    );
    expect(elsewhere.seen).toHaveLength(0);
    for (const secret of Object.values(SECRETS)) expect(errorTexts(error)).not.toContain(secret);
    expect(server.seenAt(CONSUMPTION_PATH)).toHaveLength(1);
  });

  it("a login redirected to another origin with the password in the address is refused", async () => {
    const elsewhere = await serve((_request, response) => response.writeHead(200).end("key"));
    const server = await serve((request, response) => {
      if (request.path === LOGIN_PATH)
        return response
          .writeHead(303, { location: `${elsewhere.url}/welcome?echo=${encodeURIComponent(request.body)}` })
          .end();
      response.writeHead(404).end();
    });
    const error = await fetchConsumption(options(server)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "FETCH_REDIRECT_REFUSED" });
    expect(elsewhere.seen).toHaveLength(0);
  });

  it("a redirect to another origin without any secret is still followed", async () => {
    const elsewhere = await serve((_request, response) => sendBytes(response, zip7));
    const server = await serve(
      platform((_request, response) =>
        response.writeHead(302, { location: `${elsewhere.url}/dl?sig=0123456789abcdef` }).end(),
      ),
    );
    const result = await fetchConsumption(options(server));
    expect(result.accountHours).toBe(1);
    expect(elsewhere.seen).toHaveLength(1);
  });
});
