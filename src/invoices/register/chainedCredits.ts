import { hasTable } from "../../base/hasTable.js";
import type { ChainedKind } from "./registerChain.js";

/** The columns a link of a movement covers: every one. */
export const CREDIT_COLUMNS = [
  "entry",
  "customer_id",
  "credit_id",
  "movement",
  "amount",
  "number",
  "day",
  "valid_from",
  "valid_to",
] as const;

/** Movements, as the register chains them: one chain, "prepaid credit", in the order recorded. */
export const chainedCredits: ChainedKind = {
  noun: "prepaid credit movement",
  async read(connection, keys) {
    if (!(await hasTable(connection, "register_credit_movements"))) return [];
    const rows = (
      await connection.runAndReadAll(
        `SELECT ${CREDIT_COLUMNS.join(", ")} FROM register_credit_movements ${keys === undefined ? "" : "WHERE list_contains($keys::BIGINT[], entry)"} ORDER BY entry`,
        keys === undefined ? {} : { keys: `[${keys.map(Number).join(",")}]` },
      )
    ).getRowObjectsJS();
    return rows.map((r) => ({
      key: String(r.entry),
      chain: "prepaid credit",
      place: Number(r.entry),
      fields: Object.fromEntries(CREDIT_COLUMNS.map((c) => [c, r[c]])),
    }));
  },
};
