import { UsageError } from "../base/errors.js";
import { parsePrices, type PriceList } from "../billing/prices.js";
import { parseStatementConfig, type StatementConfig } from "./document/statementConfig.js";
import { parseStructured, readBytes } from "../billing/readStructured.js";
import { loadUnits, DEFAULT_UNITS, type Units } from "../billing/units.js";
import type { CuRollup } from "../billing/unitNames.js";
import { sha256Hex } from "./register/appendToRegister.js";

/** What issuing and correcting read besides the warehouse: the files named, as given. */
export interface IssueFiles {
  /** The statement config (YAML or JSON): issuer, customers and their taxes, numbering, payment terms. */
  statement: string;
  /** The price list (YAML or JSON). */
  prices: string;
  /** A units file overriding the published constants. Default: the published ones. */
  units?: string;
  /** How an account's CU rolls up (`aggregate` or `sum`). Default `aggregate`. */
  cuRollup?: CuRollup;
}

/** The files read and checked, with the SHA-256 of the bytes each was read from. */
export interface IssueInputs {
  config: StatementConfig;
  statementSha256: string;
  prices: PriceList;
  pricesSha256: string;
  units: Units;
  cuRollup: CuRollup;
  /** The rules in force, as the register keeps them (`basis.rules`). */
  rules: Record<string, unknown>;
}

/** Reads a structured file once: its SHA-256 and its value are of the same bytes. */
async function readHashed(file: string, role: string): Promise<{ sha256: string; value: unknown }> {
  const bytes = await readBytes(file, { role });
  return { sha256: sha256Hex(bytes), value: await parseStructured(bytes.toString("utf8"), file) };
}

/** Reads and checks the statement config, the price list and the units file of an issue or a correction. */
export async function readIssueInputs(files: IssueFiles): Promise<IssueInputs> {
  const statement = await readHashed(files.statement, "statement config");
  const prices = await readHashed(files.prices, "price list");
  const units = files.units === undefined ? DEFAULT_UNITS : await loadUnits(files.units);
  const cuRollup = files.cuRollup ?? "aggregate";
  if (cuRollup !== "aggregate" && cuRollup !== "sum")
    throw new UsageError(`bad cuRollup "${String(cuRollup)}" (aggregate or sum)`);
  return {
    config: parseStatementConfig(statement.value, files.statement),
    statementSha256: statement.sha256,
    prices: parsePrices(prices.value, files.prices),
    pricesSha256: prices.sha256,
    units: { ...units },
    cuRollup,
    rules: { cuRollup, units: { ...units } },
  };
}
