import type { DuckDBConnection } from "@duckdb/node-api";
import { clockNow } from "../base/clock.js";
import { UsageError } from "../base/errors.js";
import { isoUtc } from "../base/time.js";
import { intactRegister } from "./register/registerChain.js";
import { appendDeliveryAttempt, type DeliveryRecord } from "./register/appendReceivables.js";
import { readRegisterFile } from "./register/readRegister.js";
import { readDeliveries, readDocumentHeads } from "./register/readReceivables.js";

/** What `sendDocuments` is asked. */
export interface SendRequest {
  /** The access point's endpoint, http or https: each document's UBL is posted to it. */
  to: string;
  /** The bearer token the access point gave (`CLOUDUNITS_AP_TOKEN`): sent, never in a message. */
  token: string;
  /** Only these documents (default: every document not yet delivered). */
  numbers?: readonly string[];
  /** Longest wait for an answer to one post, ms. Default 30,000. */
  timeoutMs?: number;
  /** Told of each attempt once it is recorded. */
  onAttempt?: (attempt: DeliveryRecord) => void;
}

/** A document not sent on this run, and why. */
export interface NotSent {
  number: string;
  reason: string;
}

/** What `sendDocuments` did. */
export interface SendResult {
  /** Every attempt of this run, in order (delivered or not). */
  attempts: DeliveryRecord[];
  /** Documents delivered by an earlier run (never sent again). */
  alreadyDelivered: string[];
  /** Credit notes held until the invoice they correct is delivered: tried by the next run. */
  held: NotSent[];
  /** Documents issued without an e-invoice (PDF alone): nothing to send. */
  withoutXml: NotSent[];
}

/** The longest part of a receiver's answer kept as the reason of a failure. */
const REASON_CHARS = 300;

/** The receiver's message id: a JSON body's `messageId` or `id`, else the `X-Message-Id` or `Location` header. */
function messageIdOf(body: string, headers: Headers): string | null {
  try {
    const parsed = JSON.parse(body) as { messageId?: unknown; id?: unknown };
    const id = parsed.messageId ?? parsed.id;
    if (typeof id === "string" || typeof id === "number") return String(id);
  } catch {
    // not JSON: the headers may say
  }
  return headers.get("x-message-id") ?? headers.get("location");
}

/** One post of a document's UBL: the answer as an attempt (never throws; the token never in it). */
async function post(url: URL, number: string, xml: Uint8Array, request: SendRequest): Promise<DeliveryRecord> {
  const endpoint = `${url.protocol}//${url.host}${url.pathname}`;
  const attemptedAt = isoUtc(Math.floor(clockNow()));
  const timeoutMs = request.timeoutMs ?? 30_000;
  const hide = (text: string) => (request.token.length >= 4 ? text.replaceAll(request.token, "***") : text);
  try {
    const answer = await fetch(url, {
      method: "POST",
      headers: {
        "Content-Type": "application/xml",
        Authorization: `Bearer ${request.token}`,
        "Idempotency-Key": number,
      },
      body: xml,
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
    const body = await answer.text();
    if (answer.ok)
      return {
        number,
        endpoint,
        attemptedAt,
        httpStatus: answer.status,
        messageId: messageIdOf(body, answer.headers),
        error: null,
        delivered: true,
      };
    const reason = hide(body.trim().slice(0, REASON_CHARS)) || answer.statusText;
    return {
      number,
      endpoint,
      attemptedAt,
      httpStatus: answer.status,
      messageId: null,
      error: `HTTP ${answer.status}: ${reason}`,
      delivered: false,
    };
  } catch (error) {
    const e = error as Error & { cause?: { code?: string; message?: string } };
    const why =
      e.name === "TimeoutError" || e.name === "AbortError"
        ? `no answer within ${timeoutMs / 1000} s`
        : `${e.cause?.code ?? e.cause?.message ?? e.message}`;
    return { number, endpoint, attemptedAt, httpStatus: null, messageId: null, error: hide(why), delivered: false };
  }
}

function endpointOf(to: string): URL {
  let url: URL;
  try {
    url = new URL(to);
  } catch {
    throw new UsageError(`bad to: ${JSON.stringify(to)}: give the access point's endpoint as an http or https URL`, {
      code: "BAD_URL",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`bad to: ${url.protocol}: give an http or https URL`, { code: "BAD_URL" });
  return url;
}

/**
 * Delivers documents' e-invoices to a Peppol access point (`invoices send`): posts each one's UBL
 * (`Content-Type: application/xml`, its number as the `Idempotency-Key`, the bearer token), in the
 * order issued, and records every attempt in the register (time, HTTP status, the receiver's
 * message id or why not) as soon as it is made. A document delivered before is not sent again; a
 * credit note is not sent before the invoice it corrects is delivered (held, for the next run).
 * A 2xx answer delivers; a 4xx (with the receiver's reason), a 5xx, no answer within the timeout
 * or no connection does not, and the next run tries again. Refused (UsageError): a URL that is not
 * http(s), a number not in the register; RegisterBrokenError: a register that disagrees with its chain.
 */
export async function sendDocuments(connection: DuckDBConnection, request: SendRequest): Promise<SendResult> {
  const url = endpointOf(request.to);
  // what was delivered is read from the register: not from one that disagrees with its chain (RegisterBrokenError)
  await intactRegister(connection);
  const heads = await readDocumentHeads(connection);
  const known = new Set(heads.map((h) => h.number));
  const unknown = (request.numbers ?? []).filter((n) => !known.has(n));
  if (unknown.length > 0)
    throw new UsageError(`no document ${unknown.join(", ")} in the register (invoiceRegister() lists them)`, {
      code: "UNKNOWN_NUMBER",
    });
  const delivered = new Set((await readDeliveries(connection)).filter((d) => d.delivered).map((d) => d.number));
  const named = request.numbers === undefined ? undefined : new Set(request.numbers);
  const asked = named === undefined ? heads : heads.filter((h) => named.has(h.number));
  const result: SendResult = { attempts: [], alreadyDelivered: [], held: [], withoutXml: [] };
  for (const d of asked) {
    if (delivered.has(d.number)) {
      result.alreadyDelivered.push(d.number);
      continue;
    }
    const xml = await readRegisterFile(connection, `${d.number}.xml`);
    if (xml === undefined) {
      result.withoutXml.push({ number: d.number, reason: "issued as its PDF alone (no e-invoice)" });
      continue;
    }
    // a credit note waits for its invoice's delivery (an invoice without an e-invoice is never delivered: it does not hold it)
    if (
      d.kind === "creditNote" &&
      d.corrects !== undefined &&
      !delivered.has(d.corrects) &&
      (await readRegisterFile(connection, `${d.corrects}.xml`)) !== undefined
    ) {
      result.held.push({
        number: d.number,
        reason: `not sent before ${d.corrects}, the invoice it corrects, is delivered`,
      });
      continue;
    }
    const attempt = await post(url, d.number, xml.bytes, request);
    await appendDeliveryAttempt(connection, attempt);
    if (attempt.delivered) delivered.add(d.number);
    result.attempts.push(attempt);
    request.onAttempt?.(attempt);
  }
  return result;
}
