import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** How the fake access point answers a document: accept, reject (4xx with a reason), fail (5xx), never answer, or answer late. */
export type AccessPointBehaviour = "accept" | "reject" | "fail" | "hang" | { slowMs: number };

/** What the fake access point received: one post each. */
export interface Received {
  idempotencyKey: string | undefined;
  contentType: string | undefined;
  authorization: string | undefined;
  body: string;
}

/** A loopback Peppol access point (127.0.0.1, a free port) for `invoices send`. */
export interface FakeAccessPoint {
  url: string;
  received: Received[];
  /** How to answer the document of a number (by its idempotency key); `accept` when not set. */
  behaviour: Map<string, AccessPointBehaviour>;
  /** The numbers it accepted, in order. */
  accepted: string[];
  close(): Promise<void>;
}

/** Starts the fake access point: answers 202 with `{"messageId": ...}`, 422 with a reason, 503, nothing, or 202 after a delay. */
export async function startAccessPoint(): Promise<FakeAccessPoint> {
  const received: Received[] = [];
  const behaviour = new Map<string, AccessPointBehaviour>();
  const accepted: string[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const key = req.headers["idempotency-key"] as string | undefined;
      received.push({
        idempotencyKey: key,
        contentType: req.headers["content-type"],
        authorization: req.headers.authorization,
        body,
      });
      const how = behaviour.get(key ?? "") ?? "accept";
      const accept = () => {
        accepted.push(key ?? "");
        res.writeHead(202, { "content-type": "application/json" });
        res.end(JSON.stringify({ messageId: `msg-${key}-${accepted.length}` }));
      };
      if (how === "accept") accept();
      else if (how === "reject") {
        res.writeHead(422, { "content-type": "text/plain" });
        res.end("PEPPOL-EN16931-R010: Buyer electronic address MUST be provided");
      } else if (how === "fail") {
        res.writeHead(503);
        res.end("service unavailable");
      } else if (how === "hang") {
        // never answers: the sender's timeout decides
      } else setTimeout(accept, how.slowMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/outbound`,
    received,
    behaviour,
    accepted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
