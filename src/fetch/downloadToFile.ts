import { open } from "node:fs/promises";
import { FetchError } from "../errors.js";
import { bodyError, readSmallText, type HttpResponse } from "./httpRequest.js";
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
  const kind = /html/i.test(contentType ?? "") || /^\s*</.test(snippet)
    ? "an HTML page"
    : /json/i.test(contentType ?? "") || /^\s*[[{]/.test(snippet)
      ? "JSON"
      : `data of type ${contentType ?? "unknown"}`;
  return new FetchError(
    "FETCH_NOT_ZIP",
    `${what}: ${displayUrl(answer.url)} sent ${kind} instead of a zip archive (HTTP ${answer.response.statusCode})` +
      `${snippet ? `: ${snippet}` : ""}; check --url and that the account has consumption data`,
    { status: answer.response.statusCode },
  );
}

/**
 * Streams the body of `answer` into `file` (created or truncated), checking that it starts like
 * a zip archive and that every byte the server announced (Content-Length) arrived.
 * Calls `onBytes(receivedBytes, totalBytes)` as data arrives. Returns the bytes written.
 * Throws FetchError FETCH_NOT_ZIP, FETCH_TRUNCATED, FETCH_TIMEOUT or FETCH_NETWORK.
 */
export async function downloadToFile(
  answer: HttpResponse,
  file: string,
  what: string,
  timeoutMs: number,
  onBytes: (receivedBytes: number, totalBytes: number | undefined) => void,
): Promise<number> {
  const lengthHeader = answer.response.headers["content-length"];
  const totalBytes = lengthHeader !== undefined && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : undefined;
  const handle = await open(file, "w");
  let receivedBytes = 0;
  let head = Buffer.alloc(0);
  let checked = false;
  try {
    onBytes(0, totalBytes);
    try {
      for await (const chunk of answer.response as AsyncIterable<Buffer>) {
        if (!checked) {
          head = Buffer.concat([head, chunk]);
          if (head.length < MAGIC_BYTES) continue;
          if (!ZIP_STARTS.some((start) => head.subarray(0, MAGIC_BYTES).equals(start))) {
            throw await notZipError(answer, head, what);
          }
          checked = true;
          await handle.write(head);
          receivedBytes += head.length;
        } else {
          await handle.write(chunk);
          receivedBytes += chunk.length;
        }
        onBytes(receivedBytes, totalBytes);
      }
    } catch (error) {
      if (error instanceof FetchError) throw error;
      const cause = bodyError(error, answer, timeoutMs, `${what}: reading the body of`);
      if (cause.code === "FETCH_TIMEOUT") throw cause;
      throw new FetchError(
        "FETCH_TRUNCATED",
        `${what}: the download from ${displayUrl(answer.url)} broke off after ${receivedBytes + (checked ? 0 : head.length)}` +
          `${totalBytes === undefined ? "" : ` of ${totalBytes}`} bytes; try again`,
        { cause },
      );
    }
    if (!checked) {
      if (head.length === 0 && totalBytes !== undefined && totalBytes > 0) {
        throw new FetchError("FETCH_TRUNCATED", `${what}: ${displayUrl(answer.url)} announced ${totalBytes} bytes and sent none; try again`);
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
