/** A real HTTP server on 127.0.0.1 playing the platform and the identity provider, for tests. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import type { FetchConsumptionOptions } from "../../src/index.js";

/** One request as the server saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Handler = (request: SeenRequest, response: http.ServerResponse) => unknown;

export interface FakeServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request, in order. */
  seen: SeenRequest[];
  /** Requests to `path` only. */
  seenAt(path: string): SeenRequest[];
  close(): Promise<void>;
}

/** Starts a server on a free port; `handler` answers every request after its body is read. */
export async function startServer(handler: Handler): Promise<FakeServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://localhost");
      const request: SeenRequest = {
        method: req.method ?? "",
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(request);
      Promise.resolve(handler(request, res)).catch((error: unknown) => {
        res.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    seenAt: (path) => seen.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A `serve(handler)` for a test file: each server it starts is closed after the test that
 * started it (registers a vitest `afterEach`).
 */
export function serversPerTest(): (handler: Handler) => Promise<FakeServer> {
  const servers: FakeServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });
  return async (handler) => {
    const server = await startServer(handler);
    servers.push(server);
    return server;
  };
}

export const TOKEN_PATH = "/idp/v1/oauth/access_token";
export const LOGIN_PATH = "/restmachine/cloudapi/users/authenticate";
export const CONSUMPTION_PATH = "/restmachine/cloudapi/accounts/getConsumption";

/** Secrets used by the tests: distinctive, so any leak is found by a plain text search. */
export const SECRETS = {
  clientId: "client-id-7f3a9c",
  clientSecret: "s3cr3t-Cl13nt-b4d9e1",
  username: "user-q8w2e6",
  password: "pa55-w0rd-x7y1z3",
  token: "eyJhbGciOiJIUzI1NiJ9.jwt-payload-c0ffee.sig",
  sessionKey: "session-key-deadbeef42",
} as const;

/** Every secret value: none may appear in any output or error. */
export const SECRET_VALUES: string[] = Object.values(SECRETS);

/**
 * Options of a `fetchConsumption` of account 7's first hour of October 2026 from `server`,
 * logged in with the session secrets, quick to retry and time out; `overrides` win.
 */
export function sessionFetchOptions(
  server: FakeServer,
  out: string,
  overrides: Partial<FetchConsumptionOptions> = {},
): FetchConsumptionOptions {
  return {
    url: server.url,
    auth: { kind: "session", username: SECRETS.username, password: SECRETS.password },
    accountId: 7,
    start: 1790812800,
    end: 1790812800 + 3600,
    out,
    retryDelayMs: 5,
    timeoutMs: 2000,
    ...overrides,
  };
}

/** Sends a zip (or any bytes) with a Content-Length. */
export function sendBytes(res: http.ServerResponse, bytes: Uint8Array, contentType = "application/zip"): void {
  res.writeHead(200, { "content-type": contentType, "content-length": String(bytes.length) });
  res.end(bytes);
}

/**
 * The default routes: the identity provider (answers SECRETS.token to the right client),
 * users/authenticate (answers SECRETS.sessionKey to the right user), and getConsumption
 * answered by `consumption` once the credentials are right (401 otherwise); `routes` adds
 * more authenticated operations by path.
 */
export function platform(consumption: Handler, routes: Record<string, Handler> = {}): Handler {
  return (request, response) => {
    if (request.path === TOKEN_PATH) {
      const form = new URLSearchParams(request.body);
      if (form.get("client_id") !== SECRETS.clientId || form.get("client_secret") !== SECRETS.clientSecret) {
        response.writeHead(401, { "content-type": "text/plain" }).end("invalid client");
        return;
      }
      response.writeHead(200, { "content-type": "text/plain" }).end(SECRETS.token);
      return;
    }
    if (request.path === LOGIN_PATH) {
      const form = new URLSearchParams(request.body);
      if (form.get("username") !== SECRETS.username || form.get("password") !== SECRETS.password) {
        response.writeHead(401, { "content-type": "application/json" }).end('{"error":"bad login"}');
        return;
      }
      response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(SECRETS.sessionKey));
      return;
    }
    const route = request.path === CONSUMPTION_PATH ? consumption : routes[request.path];
    if (route) {
      const authorized =
        request.headers.authorization === `bearer ${SECRETS.token}` ||
        request.query.get("authkey") === SECRETS.sessionKey;
      if (!authorized) {
        response.writeHead(401, { "content-type": "text/plain" }).end("not authenticated");
        return;
      }
      return route(request, response);
    }
    response.writeHead(404, { "content-type": "text/html" }).end("<html><body><h1>Not Found</h1></body></html>");
  };
}
