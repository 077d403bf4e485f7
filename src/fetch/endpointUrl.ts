import { UsageError } from "../base/errors.js";
import { displayUrl } from "./redact.js";

/**
 * `path` appended to the base address `base` (its own path kept, trailing slashes and any
 * query dropped): `endpointUrl("https://h/api/", "/v1/x")` is `https://h/api/v1/x`.
 * Throws a UsageError naming `what` when `base` is not an http(s) URL.
 */
export function endpointUrl(base: string, path: string, what = "url"): URL {
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    throw new UsageError(`bad ${what}: not a URL (use e.g. https://cloud.example.com)`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new UsageError(`bad ${what} ${displayUrl(parsed)}: use http:// or https://`);
  }
  if (parsed.username || parsed.password) {
    throw new UsageError(`bad ${what} ${displayUrl(parsed)}: put credentials in their own options, not in the URL`);
  }
  const url = new URL(parsed.origin);
  url.pathname = `${parsed.pathname.replace(/\/+$/, "")}${path}`;
  return url;
}
