import { readFile } from "node:fs/promises";
import type { Argv, CommandModule } from "yargs";
import { UsageError } from "../../base/errors.js";
import { fileNotFound, isNotFound } from "../../base/fileNotFound.js";
import { WAIT_OPTION, waitOf } from "../inputs.js";
import { commandLine } from "./index.js";

interface ServeArgs {
  db: string;
  port: number;
  host: string;
  prices?: string;
  units?: string;
  names?: string;
  statement?: string;
  tokenFile?: string;
  wait?: number;
}

const options = {
  db: {
    type: "string",
    demandOption: true,
    requiresArg: true,
    describe: "the warehouse file (made by ingest or sync), read-only",
  },
  port: {
    type: "number",
    default: 8080,
    requiresArg: true,
    describe: "the port to listen on (0: any free port, printed)",
  },
  host: {
    type: "string",
    default: "127.0.0.1",
    requiresArg: true,
    describe: "the address to listen on; another than loopback needs a token (CLOUDUNITS_SERVE_TOKEN or --token-file)",
  },
  prices: {
    type: "string",
    requiresArg: true,
    describe: "a price list (JSON or YAML): amounts, accounts ranked by amount, statements",
  },
  units: {
    type: "string",
    requiresArg: true,
    describe: "a units file (JSON or YAML) overriding the published constants",
  },
  names: {
    type: "string",
    requiresArg: true,
    describe: "names of accounts, cloud spaces and machines (CSV or JSON: kind,id,name), over those sync stored",
  },
  statement: {
    type: "string",
    requiresArg: true,
    describe:
      "a statement config (YAML or JSON): the account page offers its PDF statement (a draft, unnumbered; needs --prices)",
  },
  "token-file": {
    type: "string",
    requiresArg: true,
    describe: "a file holding the token every request must carry (else CLOUDUNITS_SERVE_TOKEN)",
  },
  wait: {
    ...WAIT_OPTION,
    describe:
      "while another process writes the warehouse (a sync), wait up to this many seconds for its commit; then the page answers 503 (default 60)",
  },
} as const;

/** The token: the file's first line, else the environment variable's value; never an argument (it would show in `ps`). */
async function tokenOf(argv: ServeArgs, variable: string): Promise<string | undefined> {
  if (argv.tokenFile !== undefined) {
    let text: string;
    try {
      text = await readFile(argv.tokenFile, "utf8");
    } catch (error) {
      if (isNotFound(error)) throw fileNotFound("--token-file", argv.tokenFile, { cause: error });
      throw new UsageError(`cannot read --token-file ${argv.tokenFile}: ${(error as Error).message}`, {
        code: "SERVE_TOKEN",
      });
    }
    return text.split(/\r?\n/)[0]!.trim();
  }
  const value = process.env[variable];
  return value === undefined || value === "" ? undefined : value;
}

/** `cloudunits serve --db FILE`: the read-only dashboard, until SIGINT or SIGTERM (then exit 0). */
export const serveCommand: CommandModule<object, ServeArgs> = {
  ...commandLine("serve"),
  builder: (yargs) => yargs.options(options) as unknown as Argv<ServeArgs>,
  handler: async (argv) => {
    if (!Number.isInteger(argv.port) || argv.port < 0 || argv.port > 65535)
      throw new UsageError(`bad --port ${String(argv.port)}: use 0 to 65535`);
    const { serveDashboard } = await import("../../serve/server.js");
    const { TOKEN_VARIABLE } = await import("../../serve/access.js");
    const { loadPrices } = await import("../../billing/prices.js");
    const { loadNames } = await import("../../billing/names.js");
    const { loadUnits } = await import("../../billing/units.js");
    const { loadStatementConfig } = await import("../../invoices/document/statementConfig.js");
    const { openDatabaseFile } = await import("../../store/openDatabaseFile.js");
    if (argv.statement !== undefined && argv.prices === undefined)
      throw new UsageError("--statement needs --prices FILE (a statement shows charges)");
    // the warehouse is opened once now, so a missing or foreign file is a usage error before anything listens
    const { instance, connection } = await openDatabaseFile(argv.db, { readOnly: true, waitSeconds: waitOf(argv) });
    connection.closeSync();
    instance.closeSync();
    const dashboard = await serveDashboard({
      db: argv.db,
      host: argv.host,
      port: argv.port,
      token: await tokenOf(argv, TOKEN_VARIABLE),
      waitSeconds: waitOf(argv),
      prices: argv.prices === undefined ? undefined : await loadPrices(argv.prices),
      names: argv.names === undefined ? undefined : await loadNames(argv.names),
      units: argv.units === undefined ? undefined : await loadUnits(argv.units),
      statement: argv.statement === undefined ? undefined : await loadStatementConfig(argv.statement),
      onError: (error) =>
        process.stderr.write(
          `cloudunits: serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
        ),
    });
    process.stdout.write(`cloudunits: dashboard of ${argv.db} on ${dashboard.url} (read-only; Ctrl-C stops it)\n`);
    await new Promise<void>((resolve) => {
      const stop = () => resolve();
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    await dashboard.close();
  },
};
