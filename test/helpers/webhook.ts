import { createServer, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";

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
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    auth,
    server,
    close: () => server.close(),
  };
}

/** How a hostile webhook answers once it has read the request: headers a byte at a time, a body without end, or a flood of headers. */
export type HostileAnswer = "trickled-headers" | "endless-body" | "header-flood";

/** A loopback webhook that answers as `answer` says, never ending on its own; `close()` cuts every connection. */
export async function startHostileWebhook(
  answer: HostileAnswer,
  everyMs = 50,
): Promise<{ url: string; close(): void }> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
    socket.once("data", () => {
      if (answer === "header-flood") {
        socket.write(`HTTP/1.1 200 OK\r\n${`${"x-flood: ".padEnd(1000, "a")}\r\n`.repeat(1000)}`);
        return;
      }
      socket.write(
        answer === "trickled-headers"
          ? "HTTP/1.1 200 OK\r\nx-slow: "
          : "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n",
      );
      const timer = setInterval(() => socket.write(answer === "trickled-headers" ? "a" : "1\r\na\r\n"), everyMs);
      timers.add(timer);
      socket.on("close", () => clearInterval(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}
