import { open } from "node:fs/promises";
import { CloudunitsError, FetchError } from "../base/errors.js";
import { environmentErrorOf } from "../base/environmentError.js";
import { writeFully } from "../base/writeFully.js";
import { bodyError, readSmallText, tooLargeError, type HttpResponse } from "./httpRequest.js";
import { displayUrl } from "./redact.js";
import { bodySnippet } from "./statusError.js";

/** A zip starts with a local file header, or (empty archive) with the end-of-central-directory record. */
const ZIP_STARTS = [Buffer.from("PK\x03\x04", "latin1"), Buffer.from("PK\x05\x06", "latin1")];

/** How much of the start of a body is looked at before deciding it is not a zip. */
const MAGIC_BYTES = 4;

/** A FetchError FETCH_NOT_ZIP for a body that starts with `head` (and goes on in `answer`). */
async function notZipError(answer: HttpResponse, head: Buffer, what: string): Promise<FetchError> {
  const contentType = answer.response.headers["content-type"];
  const rest = await readSmallText(answer, 4096);
  const snippet = bodySnippet(head.toString("utf8") + rest, contentType);
  const kind =
    /html/i.test(contentType ?? "") || /^\s*</.test(snippet)
      ? "an HTML page"
      : /json/i.test(contentType ?? "") || /^\s*[[{]/.test(snippet)
        ? "JSON"
        : `data of type ${contentType ?? "unknown"}`;
  return new FetchError(
    "FETCH_NOT_ZIP",
    `${what}: ${displayUrl(answer.url)} sent ${kind} instead of a zip archive (HTTP ${answer.response.statusCode})` +
      `${snippet ? `: ${snippet}` : ""}; check the url option and that the account has consumption data`,
    { status: answer.response.statusCode },
  );
}

/**
 * The error for a failed write of the download to `file`: an EnvironmentError (exit 8) when the
 * machine refused it (a full disk or quota, a read-only folder, permission denied), FetchError
 * FETCH_WRITE otherwise. Neither is retried: a retry would only fill the disk again.
 */
function writeError(error: unknown, file: string, what: string): Error {
  const refused = environmentErrorOf(error, file, "the partial download was removed, and not retried");
  if (refused) return refused;
  const code = (error as { code?: unknown } | null)?.code;
  const detail = typeof code === "string" ? code : error instanceof Error ? error.message : String(error);
  return new FetchError(
    "FETCH_WRITE",
    `${what}: cannot write ${file} (${detail}); the partial download was removed: check the folder and run again`,
  );
}

/** How a body is downloaded: `what` names it in messages. */
export interface DownloadLimits {
  what: string;
  /** Longest silence from the server, ms (for messages; the request enforces it). */
  timeoutMs: number;
  /** Largest body written, bytes: beyond it the download stops with FETCH_TOO_LARGE. */
  maxBytes: number;
}

/**
 * Streams the body of `answer` into `file` (created or truncated), checking that it starts like
 * a zip archive, that it stays within `limits.maxBytes` (announced and received) and that every
 * byte the server announced (Content-Length) arrived.
 * Calls `onBytes(receivedBytes, totalBytes)` as data arrives. Returns the bytes written.
 * Throws FetchError FETCH_NOT_ZIP, FETCH_TOO_LARGE, FETCH_WRITE or an EnvironmentError (these four are
 * never retried), FETCH_TRUNCATED, FETCH_TIMEOUT, FETCH_DEADLINE or FETCH_NETWORK.
 */
export async function downloadToFile(
  answer: HttpResponse,
  file: string,
  limits: DownloadLimits,
  onBytes: (receivedBytes: number, totalBytes: number | undefined) => void,
): Promise<number> {
  const { what, timeoutMs, maxBytes } = limits;
  const lengthHeader = answer.response.headers["content-length"];
  const totalBytes = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
  const hint = `raise maxDownloadBytes if the archive is genuinely that large, or sync in smaller chunks (chunk: "day")`;
  const handle = await open(file, "w").catch((error: unknown) => {
    throw writeError(error, file, what);
  });
  const write = async (bytes: Buffer) => {
    try {
      await writeFully(handle, bytes);
    } catch (error) {
      throw writeError(error, file, what);
    }
  };
  let receivedBytes = 0;
  let head = Buffer.alloc(0);
  let checked = false;
  try {
    const announcedTooLarge = tooLargeError(answer, 0, maxBytes, what, hint);
    if (announcedTooLarge) throw announcedTooLarge;
    onBytes(0, totalBytes);
    try {
      for await (const chunk of answer.response as AsyncIterable<Buffer>) {
        const tooLarge = tooLargeError(answer, receivedBytes + head.length + chunk.length, maxBytes, what, hint);
        if (tooLarge) throw tooLarge;
        if (!checked) {
          head = Buffer.concat([head, chunk]);
          if (head.length < MAGIC_BYTES) continue;
          if (!ZIP_STARTS.some((start) => head.subarray(0, MAGIC_BYTES).equals(start))) {
            throw await notZipError(answer, head, what);
          }
          checked = true;
          await write(head);
          receivedBytes += head.length;
          head = Buffer.alloc(0);
        } else {
          await write(chunk);
          receivedBytes += chunk.length;
        }
        onBytes(receivedBytes, totalBytes);
      }
    } catch (error) {
      if (error instanceof CloudunitsError) throw error;
      const cause = bodyError(error, answer, timeoutMs, `${what}: reading the body of`);
      if (cause.code === "FETCH_TIMEOUT" || cause.code === "FETCH_DEADLINE") throw cause;
      throw new FetchError(
        "FETCH_TRUNCATED",
        `${what}: the download from ${displayUrl(answer.url)} broke off after ${receivedBytes + (checked ? 0 : head.length)}` +
          `${totalBytes === undefined ? "" : ` of ${totalBytes}`} bytes; try again`,
        { cause },
      );
    }
    if (!checked) {
      if (head.length === 0 && totalBytes !== undefined && totalBytes > 0) {
        throw new FetchError(
          "FETCH_TRUNCATED",
          `${what}: ${displayUrl(answer.url)} announced ${totalBytes} bytes and sent none; try again`,
        );
      }
      throw await notZipError(answer, head, what);
    }
    if (totalBytes !== undefined && receivedBytes !== totalBytes) {
      throw new FetchError(
        "FETCH_TRUNCATED",
        `${what}: ${displayUrl(answer.url)} announced ${totalBytes} bytes and sent ${receivedBytes}; try again`,
      );
    }
    return receivedBytes;
  } finally {
    answer.abort();
    await handle.close();
  }
}
