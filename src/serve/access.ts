import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import type { IncomingMessage } from "node:http";
import { UsageError } from "../base/errors.js";
import { errorAnswer, redirect, type Answer } from "./answer.js";

/** The environment variable the dashboard's token is read from. */
export const TOKEN_VARIABLE = "CLOUDUNITS_SERVE_TOKEN";
/** The cookie a browser keeps the token in after opening `/?token=...` once. */
export const TOKEN_COOKIE = "cloudunits_token";

/** Whether a host to listen on is this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, "");
  if (bare === "localhost") return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  return bare === "::1" || bare === "0:0:0:0:0:0:0:1";
}

/** Checks a listening address and token: a host other than loopback needs a token of 16 characters or more. */
export function checkAccess(host: string, token: string | undefined): void {
  if (token !== undefined && token.trim().length < 16)
    throw new UsageError(
      `the dashboard's token is too short: use 16 characters or more (from ${TOKEN_VARIABLE} or the token option)`,
      { code: "SERVE_TOKEN" },
    );
  if (!isLoopback(host) && token === undefined) {
    throw new UsageError(
      `serving on ${host} makes the dashboard reachable from other machines: set a token in ${TOKEN_VARIABLE} or give token: SECRET (never on the command line), or serve on 127.0.0.1`,
      { code: "SERVE_TOKEN" },
    );
  }
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether `given` is the token, compared in constant time. */
export function tokenMatches(token: string, given: string | undefined): boolean {
  return given !== undefined && timingSafeEqual(digest(token), digest(given));
}

/** The token a request carries: `Authorization: Bearer T`, or the cookie. */
export function requestToken(headers: { authorization?: string; cookie?: string }): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? "")?.[1];
  if (bearer) return bearer.trim();
  for (const part of (headers.cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === TOKEN_COOKIE) {
      try {
        return decodeURIComponent(value.join("="));
      } catch {
        return undefined; // not an encoding of anything: no token
      }
    }
  }
  return undefined;
}

/** Whether a request's Host header names this machine (a page of another site that resolves its name to 127.0.0.1 gets no answer). */
export function hostIsLocal(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  const host = hostHeader.startsWith("[")
    ? hostHeader.slice(0, hostHeader.indexOf("]") + 1)
    : hostHeader.split(":")[0]!;
  return isLoopback(host);
}

/**
 * What the access rules answer before any page, or undefined to go on. With a token: a request
 * carrying it as `?token=` is redirected to the same page without it, setting the cookie (to
 * `/` when the path is none of the dashboard's own, `isOwnPath`: `/.//evil.example/` must not
 * send the browser to `//evil.example/`); one without it is 401. Without a token: a request
 * not addressed to this machine is 403.
 */
export function accessAnswer(
  request: IncomingMessage,
  url: URL,
  token: string | undefined,
  isOwnPath: (path: string) => boolean,
): Answer | undefined {
  if (token === undefined) {
    return hostIsLocal(request.headers.host)
      ? undefined
      : errorAnswer(403, "This dashboard answers only requests addressed to this machine (127.0.0.1 or localhost).");
  }
  const given = url.searchParams.get("token");
  if (given !== null && tokenMatches(token, given)) {
    url.searchParams.delete("token");
    const location = isOwnPath(url.pathname) ? `${url.pathname}${url.search}` : "/";
    return redirect(location, {
      "set-cookie": `${TOKEN_COOKIE}=${encodeURIComponent(given)}; HttpOnly; SameSite=Strict; Path=/`,
    });
  }
  if (!tokenMatches(token, requestToken(request.headers)))
    return errorAnswer(
      401,
      "This dashboard needs its token: open it once as /?token=TOKEN, or send Authorization: Bearer TOKEN.",
    );
  return undefined;
}
