import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";
import { UsageError } from "../../errors.js";
import { isDirectoryOut } from "../../fetch/consumptionFile.js";
import { FETCH_DEFAULTS, fetchConsumption } from "../../fetch/fetchConsumption.js";
import type { FetchAuth } from "../../fetch/types.js";
import { startBytesProgress } from "../progress.js";
import { commandLine } from "./index.js";

const options = {
  url: { type: "string", demandOption: true, describe: "service base address {base_url}, e.g. https://cloud.example.com" },
  "account-id": { type: "number", array: true, nargs: 1, demandOption: true, describe: "account to download (repeat for several: one file each)" },
  start: { type: "string", demandOption: true, describe: "start of the period: epoch seconds or ISO 8601 (UTC when no zone)" },
  end: { type: "string", demandOption: true, describe: "end of the period (exclusive)" },
  out: { type: "string", demandOption: true, describe: "file to write, or a directory (existing, or ending with /) for consumption-<id>-<start>-<end>.zip" },
  "auth-url": { type: "string", describe: "JWT: identity provider address {auth_url}" },
  "client-id": { type: "string", describe: "JWT: application id (or env CLOUDUNITS_CLIENT_ID)" },
  "client-secret": { type: "string", describe: "JWT: application secret (or env CLOUDUNITS_CLIENT_SECRET, safer than a flag)" },
  validity: { type: "number", describe: "JWT: optional validity passed to the identity provider" },
  username: { type: "string", describe: "session key: user name (or env CLOUDUNITS_USERNAME)" },
  password: { type: "string", describe: "session key: password (or env CLOUDUNITS_PASSWORD, safer than a flag)" },
  timeout: { type: "number", default: FETCH_DEFAULTS.timeoutMs / 1000, describe: "seconds of silence from the server before giving up a request" },
  retries: { type: "number", default: FETCH_DEFAULTS.retries, describe: "retries on 5xx, reset connections, cut-off downloads and timeouts" },
} as const;

/** The authentication flags of `fetch`. */
export interface AuthFlags {
  authUrl?: string;
  clientId?: string;
  clientSecret?: string;
  validity?: number;
  username?: string;
  password?: string;
}

type FetchArgs = ArgumentsCamelCase<AuthFlags & {
  url: string;
  accountId: number[];
  start: string;
  end: string;
  out: string;
  timeout: number;
  retries: number;
}>;

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
    throw new UsageError("give one authentication method: --client-id/--client-secret/--auth-url (JWT) or --username/--password (session key), not both");
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
    throw new UsageError("no authentication given: use --client-id/--client-secret/--auth-url (JWT) or --username/--password (session key), or their CLOUDUNITS_* environment variables");
  }
  if (argv.authUrl === undefined || argv.authUrl === "") throw new UsageError("missing --auth-url: the identity provider's address, needed for JWT authentication");
  return {
    kind: "jwt",
    authUrl: argv.authUrl,
    clientId: secret(argv.clientId, "--client-id", "CLOUDUNITS_CLIENT_ID", env),
    clientSecret: secret(argv.clientSecret, "--client-secret", "CLOUDUNITS_CLIENT_SECRET", env),
    ...(argv.validity === undefined ? {} : { validity: argv.validity }),
  };
}

/** `cloudunits fetch`: download consumption archives from the live service (SPEC 5). */
export const fetchCommand: CommandModule<object, FetchArgs> = {
  ...commandLine("fetch"),
  builder: (yargs: Argv<object>) => yargs.options(options) as unknown as Argv<FetchArgs>,
  handler: async (argv) => {
    const accountIds = argv.accountId;
    for (const id of accountIds) {
      if (!Number.isInteger(id) || id < 1) throw new UsageError(`bad --account-id ${String(id)}: use a positive whole number`);
    }
    if (new Set(accountIds).size !== accountIds.length) throw new UsageError("an --account-id is given twice");
    if (accountIds.length > 1 && !(await isDirectoryOut(argv.out))) {
      throw new UsageError(`--out ${argv.out} must be a directory (existing, or ending with /) for several --account-id: each account gets its own file`);
    }
    if (!(argv.timeout > 0)) throw new UsageError(`bad --timeout ${argv.timeout}: use a positive number of seconds`);
    const auth = authFromArgs(argv, process.env);
    for (const accountId of accountIds) {
      const bar = startBytesProgress(`account ${accountId}`);
      try {
        const result = await fetchConsumption({
          url: argv.url,
          auth,
          accountId,
          start: argv.start,
          end: argv.end,
          out: argv.out,
          timeoutMs: argv.timeout * 1000,
          retries: argv.retries,
          onProgress: (progress) => bar.update(progress.receivedBytes, progress.totalBytes),
        });
        bar.stop();
        process.stdout.write(`${result.file}\t${result.bytes} bytes\t${result.accountHours} account-hours\n`);
        if (result.accountHours === 0) process.stderr.write(`cloudunits: warning: account ${accountId} has no consumption files in the period\n`);
      } finally {
        bar.stop();
      }
    }
  },
};
