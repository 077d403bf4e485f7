/**
 * Keeping secrets out of messages: URLs are shown without user info and query, and every
 * error leaving the client has each secret value replaced by `***` in its message, stack
 * and cause chain.
 */

/** Secrets shorter than this are not replaced: they would garble ordinary text. */
const MIN_SECRET_LENGTH = 4;

/** A URL as shown in messages: origin and path only (no user info, no query, no fragment). */
export function displayUrl(url: URL | string): string {
  try {
    const parsed = typeof url === "string" ? new URL(url) : url;
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "<invalid URL>";
  }
}

/** `text` with every occurrence of every secret (and its URL-encoded form) replaced by `***`. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue;
    for (const form of new Set([secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)])) {
      out = out.split(form).join("***");
    }
  }
  return out;
}

/**
 * Removes secrets from an error, its stack and its whole `cause` chain, in place; returns it.
 * Causes that are not Error objects are replaced by their redacted text.
 */
export function redactError<T>(error: T, secrets: readonly string[]): T {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    current.message = redactText(current.message, secrets);
    if (current.stack) current.stack = redactText(current.stack, secrets);
    const cause: unknown = current.cause;
    if (cause !== undefined && !(cause instanceof Error)) current.cause = redactText(String(cause), secrets);
    current = current.cause;
  }
  return error;
}
