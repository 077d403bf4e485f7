import { UsageError } from "../base/errors.js";
import { openWarehouse } from "../store/openWarehouse.js";
import type { Warehouse } from "../store/types.js";

/** Pages one client (one address) may have computed or waiting at once (docs/safety.md); more are refused at once. */
export const PAGES_IN_FLIGHT_PER_CLIENT = 8;

/** A client that asks for more pages than it may have in flight (the dashboard answers 429). */
export class ClientBusyError extends UsageError {
  constructor(pages: number) {
    super(
      `this client has ${pages} pages being computed or waiting already, the most one may: ask again once they are answered`,
      { code: "SERVE_CLIENT_BUSY" },
    );
  }
}

/**
 * DuckDB's memory for each page's computation (as the commands that read a warehouse through the
 * billing engine, `forecast`, `alerts`, `top`, take): what it caches of the file stays under it,
 * so the dashboard's peak does not grow with the rows a page reads (docs/performance.md); a query
 * needing more is run again with more (`withMemoryToSpare`).
 */
export const PAGE_MEMORY_BYTES = 64 * 1024 * 1024;

interface Job {
  work: (store: Warehouse) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * The dashboard's computations on the warehouse: one at a time, each with the file opened
 * read-only for it and closed after (a sync can write between two), and fair between clients:
 * each client's computations wait in its own queue, and the queues take turns, so a client
 * asking for many pages delays another's by at most one of its computations. A client's queue
 * is bounded: past `PAGES_IN_FLIGHT_PER_CLIENT` computations (waiting, or the one under way),
 * its next is refused at once (ClientBusyError).
 */
export class WarehouseQueue {
  /** The waiting computations per client; the client whose turn is next comes first. */
  private readonly queues = new Map<string, Job[]>();
  /** The client whose computation is under way, if one is. */
  private running: string | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly db: string,
    private readonly waitSeconds: number | undefined,
  ) {}

  /** Runs `work` for `client` on the warehouse, after the computations under way and, by turns, those of the other clients. */
  run<T>(client: string, work: (store: Warehouse) => Promise<T>): Promise<T> {
    const pending = (this.queues.get(client)?.length ?? 0) + (this.running === client ? 1 : 0);
    if (pending >= PAGES_IN_FLIGHT_PER_CLIENT) return Promise.reject(new ClientBusyError(pending));
    return new Promise<T>((resolve, reject) => {
      const queue = this.queues.get(client) ?? [];
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      this.queues.set(client, queue);
      void this.next();
    });
  }

  /** Resolves once no computation is under way or waiting. */
  idle(): Promise<void> {
    if (this.running === undefined && this.queues.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Runs the next client's next computation, that client then going to the back. */
  private async next(): Promise<void> {
    if (this.running !== undefined) return;
    const turn = this.queues.entries().next();
    if (turn.done) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    const [client, queue] = turn.value;
    const job = queue.shift()!;
    this.queues.delete(client);
    if (queue.length > 0) this.queues.set(client, queue);
    this.running = client;
    try {
      const store = await openWarehouse(
        { db: this.db },
        { waitSeconds: this.waitSeconds, memoryLimitBytes: PAGE_MEMORY_BYTES },
      );
      try {
        job.resolve(await job.work(store));
        // the page is answered first (what waits for it runs now): closing DuckDB holds this thread a while
        await new Promise((resolve) => setImmediate(resolve));
      } finally {
        store.close();
      }
    } catch (error) {
      job.reject(error);
    } finally {
      this.running = undefined;
      void this.next();
    }
  }
}
