import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { UsageError } from "../base/errors.js";

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
  if (token !== undefined && token.trim().length < 16) throw new UsageError(`the dashboard's token is too short: use 16 characters or more (from ${TOKEN_VARIABLE} or --token-file)`, { code: "SERVE_TOKEN" });
  if (!isLoopback(host) && token === undefined) {
    throw new UsageError(
      `serving on ${host} makes the dashboard reachable from other machines: set a token in ${TOKEN_VARIABLE} or give --token-file FILE (never on the command line), or serve on 127.0.0.1`,
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
    if (name === TOKEN_COOKIE) return decodeURIComponent(value.join("="));
  }
  return undefined;
}

/** Whether a request's Host header names this machine (a page of another site that resolves its name to 127.0.0.1 gets no answer). */
export function hostIsLocal(hostHeader: string | undefined): boolean {
  if (hostHeader === undefined) return false;
  const host = hostHeader.startsWith("[") ? hostHeader.slice(0, hostHeader.indexOf("]") + 1) : hostHeader.split(":")[0]!;
  return isLoopback(host);
}
