/**
 * The longest wait a server's `Retry-After` is honoured for, ms: a server asking for longer is
 * tried again after this (or the call gives up, when its deadline comes first).
 */
export const MAX_RETRY_AFTER_MS = 120_000;

/**
 * The wait a `Retry-After` header asks for, ms: delay-seconds (`120`) or an HTTP-date (`Wed, 21
 * Oct 2026 07:28:00 GMT`, from `nowMs`; a date past is 0). Undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | string[] | undefined, nowMs: number): number | undefined {
  const text = (Array.isArray(header) ? header[0] : header)?.trim();
  if (text === undefined || text === "") return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/GMT$/.test(text)) return undefined; // an HTTP-date is always in GMT
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
