import type { CommandModule } from "yargs";
import { billingCommand } from "./billing.js";
import { fetchCommand } from "./fetch.js";
import { generateCommand } from "./generate.js";
import { checkCommand } from "./check.js";
import { demoCommand } from "./demo.js";
import { exportCommand } from "./export.js";
import { ingestCommand } from "./ingest.js";
import { reportCommand } from "./report.js";
import { statsCommand } from "./stats.js";

/**
 * Every command of the CLI. A command module parses its options (declared as data) and
 * calls the library; it never exits: it returns, or throws an error of src/errors.ts.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const commands: CommandModule<any, any>[] = [
  generateCommand,
  fetchCommand,
  ingestCommand,
  billingCommand,
  checkCommand,
  exportCommand,
  reportCommand,
  statsCommand,
  demoCommand,
];
