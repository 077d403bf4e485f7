import { readFile } from "node:fs/promises";
import { UsageError } from "../base/errors.js";
import { fileNotFound, isNotFound } from "../base/fileNotFound.js";

/** The kinds of entity a names file can name. */
export type NameKind = "account" | "cloudspace" | "machine";

/**
 * Display names of accounts, cloud spaces and machines, keyed `kind:id` (the files carry
 * ids only). Unknown entities are named `""`, as the service does.
 */
export type Names = ReadonlyMap<string, string>;

const KINDS: Record<string, NameKind> = {
  account: "account",
  cloudspace: "cloudspace",
  "cloud space": "cloudspace",
  cloud_space: "cloudspace",
  machine: "machine",
  vm: "machine",
};

/** The name of an entity, or `""` when the names are absent or do not know it. */
export function nameOf(names: Names | undefined, kind: NameKind, id: number): string {
  return names?.get(`${kind}:${id}`) ?? "";
}

/** `base` with every name of `over` put over it (a names file over the stored names); undefined when both are. */
export function overlayNames(base: Names | undefined, over: Names | undefined): Names | undefined {
  if (base === undefined || base.size === 0) return over;
  if (over === undefined) return base;
  return new Map([...base, ...over]);
}

/**
 * Builds Names from rows `{ kind, id, name }`; `source` names the file in errors.
 * Kinds: account, cloudspace (or "cloud space", cloud_space), machine (or vm).
 */
export function makeNames(rows: readonly { kind: unknown; id: unknown; name: unknown }[], source = "names"): Names {
  const names = new Map<string, string>();
  rows.forEach((row, i) => {
    const kind =
      KINDS[
        String(row.kind ?? "")
          .trim()
          .toLowerCase()
      ];
    const id = typeof row.id === "number" ? row.id : Number(String(row.id ?? "").trim());
    if (!kind)
      throw new UsageError(
        `${source}: row ${i + 1}: unknown kind ${JSON.stringify(row.kind)} (use account, cloudspace or machine)`,
      );
    if (!Number.isSafeInteger(id) || String(row.id).trim() === "") {
      throw new UsageError(`${source}: row ${i + 1}: id must be a whole number, got ${JSON.stringify(row.id)}`);
    }
    names.set(`${kind}:${id}`, row.name === undefined || row.name === null ? "" : String(row.name));
  });
  return names;
}

/**
 * Reads a names file: JSON (an array of `{ kind, id, name }`) when it ends in `.json`,
 * else CSV with a header row `kind,id,name` (RFC 4180 quoting; a UTF-8 BOM is ignored).
 */
export async function loadNames(file: string): Promise<Names> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if (isNotFound(error)) throw fileNotFound("names file", file, { cause: error });
    throw new UsageError(`cannot read names file ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (file.toLowerCase().endsWith(".json")) {
    let rows: unknown;
    try {
      rows = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${file}: not valid JSON: ${(error as Error).message}`, { cause: error });
    }
    if (!Array.isArray(rows))
      throw new UsageError(`${file}: a JSON names file is an array of { "kind", "id", "name" }`);
    return makeNames(rows as { kind: unknown; id: unknown; name: unknown }[], file);
  }
  const table = parseCsv(text.replace(/^\uFEFF/, ""));
  const header = (table.shift() ?? []).map((h) => h.trim().toLowerCase());
  const at = (name: string) => {
    const i = header.indexOf(name);
    if (i < 0)
      throw new UsageError(
        `${file}: the header row must name the columns kind,id,name (found ${header.join(",") || "nothing"})`,
      );
    return i;
  };
  const [k, i, n] = [at("kind"), at("id"), at("name")];
  return makeNames(
    table.filter((r) => r.some((c) => c !== "")).map((r) => ({ kind: r[k], id: r[i], name: r[n] })),
    file,
  );
}

/** RFC 4180 CSV into rows of cells. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let p = 0; p < text.length; p++) {
    const ch = text[p]!;
    if (quoted) {
      if (ch === '"' && text[p + 1] === '"') {
        cell += '"';
        p++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n" || ch === "\r") {
      if (ch === "\r" && text[p + 1] === "\n") p++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell !== "" || row.length > 0) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}
