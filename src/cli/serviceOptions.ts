import { UsageError } from "../base/errors.js";
import { FETCH_DEFAULTS } from "../fetch/serviceSession.js";
import type { FetchAuth, RequestPolicy } from "../fetch/types.js";

const MIB = 1024 * 1024;

/** The options of every command that calls the live service: authentication, timeout, retries. */
export const SERVICE_OPTIONS = {
  "auth-url": { type: "string", describe: "JWT: identity provider address {auth_url}" },
  "client-id": { type: "string", describe: "JWT: application id (or env CLOUDUNITS_CLIENT_ID)" },
  "client-secret": {
    type: "string",
    describe: "JWT: application secret (or env CLOUDUNITS_CLIENT_SECRET, safer than a flag)",
  },
  validity: { type: "number", describe: "JWT: optional validity passed to the identity provider" },
  username: { type: "string", describe: "session key: user name (or env CLOUDUNITS_USERNAME)" },
  password: { type: "string", describe: "session key: password (or env CLOUDUNITS_PASSWORD, safer than a flag)" },
  timeout: {
    type: "number",
    default: FETCH_DEFAULTS.timeoutMs / 1000,
    describe: "seconds of silence from the server before giving up a request",
  },
  retries: {
    type: "number",
    default: FETCH_DEFAULTS.retries,
    describe: "retries on 5xx, reset connections, cut-off downloads and timeouts",
  },
  "max-json-mib": {
    type: "number",
    default: FETCH_DEFAULTS.maxJsonBytes / MIB,
    describe: "largest JSON answer read (accounts/list, cloudspaces/list), MiB",
  },
  "max-download-mib": {
    type: "number",
    default: FETCH_DEFAULTS.maxDownloadBytes / MIB,
    describe: "largest consumption archive downloaded, MiB",
  },
  deadline: {
    type: "number",
    default: FETCH_DEFAULTS.deadlineMs / 1000,
    describe: "seconds one download or call may take in all, retries included",
  },
} as const;

/** The authentication flags of the commands that call the service. */
export interface AuthFlags {
  authUrl?: string;
  clientId?: string;
  clientSecret?: string;
  validity?: number;
  username?: string;
  password?: string;
}

/** A secret from its flag, else its environment variable; a UsageError naming both when missing. */
function secret(flagValue: string | undefined, flag: string, envName: string, env: NodeJS.ProcessEnv): string {
  const value = flagValue ?? env[envName];
  if (value === undefined || value === "") throw new UsageError(`missing ${flag}: pass it or set ${envName}`);
  return value;
}

/**
 * The authentication method chosen by the flags: JWT when any of --auth-url, --client-id,
 * --client-secret, --validity is given, session key when --username or --password is; with
 * neither, a session key when CLOUDUNITS_USERNAME or CLOUDUNITS_PASSWORD is set. Both: error.
 */
export function authFromArgs(argv: AuthFlags, env: NodeJS.ProcessEnv): FetchAuth {
  const jwtFlags = [argv.authUrl, argv.clientId, argv.clientSecret, argv.validity].some((v) => v !== undefined);
  const sessionFlags = [argv.username, argv.password].some((v) => v !== undefined);
  if (jwtFlags && sessionFlags) {
    throw new UsageError(
      "give one authentication method: --client-id/--client-secret/--auth-url (JWT) or --username/--password (session key), not both",
    );
  }
  const sessionFromEnv = !jwtFlags && !sessionFlags && (env.CLOUDUNITS_USERNAME || env.CLOUDUNITS_PASSWORD);
  if (sessionFlags || sessionFromEnv) {
    return {
      kind: "session",
      username: secret(argv.username, "--username", "CLOUDUNITS_USERNAME", env),
      password: secret(argv.password, "--password", "CLOUDUNITS_PASSWORD", env),
    };
  }
  if (!jwtFlags && !env.CLOUDUNITS_CLIENT_ID && !env.CLOUDUNITS_CLIENT_SECRET) {
    throw new UsageError(
      "no authentication given: use --client-id/--client-secret/--auth-url (JWT) or --username/--password (session key), or their CLOUDUNITS_* environment variables",
    );
  }
  if (argv.authUrl === undefined || argv.authUrl === "")
    throw new UsageError("missing --auth-url: the identity provider's address, needed for JWT authentication");
  return {
    kind: "jwt",
    authUrl: argv.authUrl,
    clientId: secret(argv.clientId, "--client-id", "CLOUDUNITS_CLIENT_ID", env),
    clientSecret: secret(argv.clientSecret, "--client-secret", "CLOUDUNITS_CLIENT_SECRET", env),
    ...(argv.validity === undefined ? {} : { validity: argv.validity }),
  };
}

/** The flags of {@link SERVICE_OPTIONS}, camel-cased. */
export interface ServiceFlags extends AuthFlags {
  timeout: number;
  retries: number;
  maxJsonMib: number;
  maxDownloadMib: number;
  deadline: number;
}

/** A size flag in MiB as bytes (UsageError naming `flag` unless positive). */
function mibFlag(value: number, flag: string): number {
  if (!(value > 0)) throw new UsageError(`bad ${flag} ${value}: use a positive number of MiB`);
  return Math.ceil(value * MIB);
}

/** The request policy of the flags (UsageError for a bad --timeout, --deadline or size limit). */
export function policyFromArgs(
  argv: ServiceFlags,
): Required<Pick<RequestPolicy, "timeoutMs" | "retries" | "maxJsonBytes" | "maxDownloadBytes" | "deadlineMs">> {
  if (!(argv.timeout > 0)) throw new UsageError(`bad --timeout ${argv.timeout}: use a positive number of seconds`);
  if (!(argv.deadline > 0)) throw new UsageError(`bad --deadline ${argv.deadline}: use a positive number of seconds`);
  return {
    timeoutMs: argv.timeout * 1000,
    retries: argv.retries,
    maxJsonBytes: mibFlag(argv.maxJsonMib, "--max-json-mib"),
    maxDownloadBytes: mibFlag(argv.maxDownloadMib, "--max-download-mib"),
    deadlineMs: argv.deadline * 1000,
  };
}
