/** Options and results of the live-service client (docs/cli.md, seed 4.5 and 5). */

/** Authentication with a bearer token (JWT) from the identity provider (seed 5.1). */
export interface JwtAuth {
  kind: "jwt";
  /** The identity provider's base address; the token comes from `{authUrl}/v1/oauth/access_token`. */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** Optional `validity` form field, passed through as given (the seed gives no unit). */
  validity?: number;
}

/** Authentication with a session key from `users/authenticate` (seed 5.2). */
export interface SessionAuth {
  kind: "session";
  username: string;
  password: string;
}

/** Either authentication method of the seed. */
export type FetchAuth = JwtAuth | SessionAuth;

/** What an authenticated call carries: a bearer header or an `authkey` query parameter. */
export type Credentials = { kind: "bearer"; token: string } | { kind: "authkey"; key: string };

/** Progress of one download, reported as bytes arrive (and again at the end). */
export interface FetchProgress {
  accountId: number;
  /** Bytes of the body received so far in the current attempt. */
  receivedBytes: number;
  /** The body's Content-Length; undefined when the server does not say. */
  totalBytes: number | undefined;
}

/** How requests behave: timeouts, retries, redirects. Every field has a default. */
export interface RequestPolicy {
  /** Longest silence from the server, ms: waiting for the answer or between body bytes. Default 60000. */
  timeoutMs?: number;
  /** Retries after a 5xx/429 answer, a reset connection, a cut-off body or a timeout. Default 3. */
  retries?: number;
  /** Longest wait before the first retry, ms (each wait is random up to it: full jitter), doubling at each retry; a server's `Retry-After` (on 429 and 5xx) is waited instead, up to 2 min. Default 1000. */
  retryDelayMs?: number;
  /** Redirects followed per request. Default 10. */
  maxRedirects?: number;
  /**
   * Largest JSON answer read (`accounts/list`, `cloudspaces/list`, a calculation), bytes: a
   * longer one is refused (FETCH_TOO_LARGE), not parsed. Default 64 MiB.
   */
  maxJsonBytes?: number;
  /**
   * Largest consumption archive downloaded, bytes: a longer one (announced or sent) is cut off,
   * refused (FETCH_TOO_LARGE) and not retried. Default 16 GiB.
   */
  maxDownloadBytes?: number;
  /**
   * How long one call may take in all, ms: the download or answer, its redirects and its
   * retries. Past it the connection is cut (FETCH_DEADLINE) and not retried. Default 1 hour.
   */
  deadlineMs?: number;
}

/** Options of {@link fetchConsumption}. */
export interface FetchConsumptionOptions extends RequestPolicy {
  /** The service base address `{base_url}`, e.g. `https://cloud.example.com` (no `/restmachine`). */
  url: string;
  auth: FetchAuth;
  accountId: number;
  /** Start of the period: epoch seconds, or a time `parseTime` reads (ISO 8601). */
  start: number | string;
  /** End of the period: epoch seconds, or a time `parseTime` reads. */
  end: number | string;
  /**
   * Where to write: a file, or a directory (an existing one, or a path ending in `/`) that gets
   * `consumption-<accountId>-<start>-<end>.zip`. Missing parent directories are created.
   */
  out: string;
  onProgress?: (progress: FetchProgress) => void;
}

/** What {@link fetchConsumption} wrote. */
export interface FetchConsumptionResult {
  /** The path of the archive written. */
  file: string;
  /** Its size, bytes. */
  bytes: number;
  /** Account-hours found in it (all of the requested account). */
  accountHours: number;
}
