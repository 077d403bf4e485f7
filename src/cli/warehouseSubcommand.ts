import type { DuckDBConnection } from "@duckdb/node-api";
import type { ArgumentsCamelCase, Argv, CommandModule, InferredOptionTypes, Options } from "yargs";
import { WAIT_OPTION, waitOf, WAREHOUSE_OPTION } from "./inputs.js";

/** The flags every subcommand on a warehouse file declares: `--db` first, `--wait` last. */
const WAREHOUSE_FLAGS = { db: WAREHOUSE_OPTION, wait: WAIT_OPTION } as const;

/** The flags of a subcommand as its handler reads them (`--account-id` as `accountId`), typed from its options. */
export type FlagsOf<O extends Record<string, Options>> = ArgumentsCamelCase<
  InferredOptionTypes<O & typeof WAREHOUSE_FLAGS>
>;

/** What the library is asked on the open warehouse. */
export type WarehouseCall<R> = (connection: DuckDBConnection) => Promise<R>;

/**
 * A subcommand that asks the library something on the warehouse file of `--db` (the invoice
 * register's): its line, its flags as data, the call, and how what the call gave is printed.
 */
export interface WarehouseSubcommand<O extends Record<string, Options>, R> {
  /** Its name, as typed after the command's. */
  command: string;
  /** One line for `--help`. */
  describe: string;
  /** Its flags but `--db` and `--wait`, which every one has, in `--help` order. */
  options: O;
  /** Opened to write (issuing, recording) or read-only (reading the register). */
  opens: "to write" | "read-only";
  /**
   * Checks the flags and loads the library's module, before the warehouse is opened (a bad
   * flag is refused without touching the file), and gives the call to run on it.
   */
  call(argv: FlagsOf<O>): Promise<WarehouseCall<R>>;
  /** Prints what the call gave; throws the error whose exit code the run ends with, if any. */
  print(result: R, argv: FlagsOf<O>): void | Promise<void>;
}

/** Runs `call` on the warehouse of `--db`, opened as `opens` says (never made: an empty one has nothing to read), closed after. */
async function onWarehouseFile<R>(
  argv: { db: string; wait?: number },
  opens: "to write" | "read-only",
  call: WarehouseCall<R>,
): Promise<R> {
  const { openDatabaseFile } = await import("../store/openDatabaseFile.js");
  const { instance, connection } = await openDatabaseFile(argv.db, {
    readOnly: opens === "read-only",
    create: false,
    waitSeconds: waitOf(argv),
  });
  try {
    return await call(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The yargs module of a subcommand on a warehouse file: its flags, then check, open, call, close, print. */
export function warehouseSubcommand<O extends Record<string, Options>, R>(
  subcommand: WarehouseSubcommand<O, R>,
): CommandModule {
  const { db, wait } = WAREHOUSE_FLAGS;
  return {
    command: subcommand.command,
    describe: subcommand.describe,
    builder: (yargs: Argv) => yargs.options({ db, ...subcommand.options, wait }),
    handler: async (args) => {
      const argv = args as unknown as FlagsOf<O>;
      const call = await subcommand.call(argv);
      await subcommand.print(await onWarehouseFile(argv, subcommand.opens, call), argv);
    },
  };
}
