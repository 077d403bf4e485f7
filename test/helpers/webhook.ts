import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A loopback webhook for `alerts --notify`. */
export interface Webhook {
  url: string;
  /** Every body posted to it, in order. */
  bodies: string[];
  /** The Authorization headers it was sent. */
  auth: string[];
  server: Server;
  close(): void;
}

/** Starts a loopback webhook answering `status` (with `location` for a redirect), keeping bodies and authorization headers. */
export async function startWebhook(status = 200, location?: string): Promise<Webhook> {
  const bodies: string[] = [];
  const auth: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      bodies.push(body);
      if (req.headers.authorization) auth.push(req.headers.authorization);
      res.writeHead(status, location ? { location } : {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, auth, server, close: () => server.close() };
}
