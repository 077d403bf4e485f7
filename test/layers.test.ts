import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO } from "./helpers/shellExamples.js";

// The layers of src/ are the pipeline, in the order docs/architecture.md lists them: a file
// imports (at run time) only from its own folder or from folders listed before it, and no
// files import each other in a circle. Type-only imports vanish at run time and are not
// counted. The order is read from the document, so the document stays the rule. A sub-folder
// the diagram lists (`invoices/document/`) is a layer of its own, in its place: a file belongs to
// the longest folder listed that holds it.

const SRC = join(REPO, "src");

/** The folders of src/ (and sub-folders listed) in the order of the architecture diagram; "(top)" for index.ts and open.ts. */
function layerOrder(doc: string): string[] {
  const block = doc.slice(doc.indexOf("```\nsrc/"), doc.indexOf("```\n", doc.indexOf("```\nsrc/") + 4));
  const order: string[] = [];
  for (const line of block.split("\n")) {
    const m = /^ {2}((?:\w+\/)+|\w+\.ts)\s/.exec(line);
    if (m === null) continue;
    const name = m[1].endsWith("/") ? m[1].slice(0, -1) : "(top)";
    if (!order.includes(name)) order.push(name);
  }
  return order;
}

interface Edge {
  from: string;
  to: string;
}

/** Every value import between the .ts files under `root` (relative paths), as imports.mjs reads them. */
function valueImports(root: string): { files: string[]; edges: Edge[] } {
  const files: string[] = [];
  (function walk(d: string) {
    for (const n of readdirSync(d)) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) files.push(p);
    }
  })(root);
  const edges: Edge[] = [];
  for (const f of files) {
    const text = readFileSync(f, "utf8");
    for (const m of text.matchAll(/(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?["'](\.[^"']+)["']/g)) {
      if (/import\s+type|export\s+type/.test(m[0])) continue;
      let t = resolve(dirname(f), m[1]).replace(/\.js$/, ".ts");
      if (!t.endsWith(".ts")) t += ".ts";
      edges.push({ from: relative(root, f), to: relative(root, t) });
    }
  }
  return { files: files.map((f) => relative(root, f)), edges };
}

/** The strongly connected components of more than one file (Tarjan). */
function importCircles(files: readonly string[], edges: readonly Edge[]): string[][] {
  const out = new Map<string, string[]>(files.map((f) => [f, []]));
  for (const e of edges) if (out.has(e.to)) out.get(e.from)!.push(e.to);
  let next = 0;
  const stack: string[] = [],
    onStack = new Set<string>(),
    index = new Map<string, number>(),
    low = new Map<string, number>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of out.get(v)!) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) circles.push(c.sort());
    }
  };
  for (const f of files) if (!index.has(f)) visit(f);
  return circles;
}

/** The layer of a file: the longest folder of `order` that holds it, else its top folder; "(top)" for a file of src/ itself. */
function folderOf(file: string, order: readonly string[]): string {
  if (!file.includes("/")) return "(top)";
  const listed = order.filter((f) => file.startsWith(`${f}/`)).sort((a, b) => b.length - a.length);
  return listed[0] ?? file.split("/")[0];
}

/** The imports going from a folder to one listed after it (or to a folder the order does not list). */
function upwardImports(edges: readonly Edge[], order: readonly string[]): string[] {
  const rank = (file: string): number => order.indexOf(folderOf(file, order));
  return edges
    .filter((e) => folderOf(e.from, order) !== folderOf(e.to, order))
    .filter((e) => !(rank(e.to) >= 0 && rank(e.to) < rank(e.from)))
    .map((e) => `${e.from} -> ${e.to}`);
}

describe("the layers of src/", () => {
  const order = layerOrder(readFileSync(join(REPO, "docs/architecture.md"), "utf8"));
  const { files, edges } = valueImports(SRC);

  it("are listed in docs/architecture.md, every folder of src/ in its place (a new folder: add it to the diagram where it belongs)", () => {
    expect(order.slice(0, 4)).toEqual(["base", "input", "capnp", "load"]);
    expect(order.at(-1)).toBe("cli");
    const folders = [...new Set(files.map((f) => folderOf(f, order)))].sort();
    expect(folders.filter((f) => !order.includes(f))).toEqual([]);
  });

  it("import only from their own folder or from folders listed before it", () => {
    expect(upwardImports(edges, order)).toEqual([]);
  });

  it("have no files that import each other in a circle", () => {
    expect(importCircles(files, edges)).toEqual([]);
  });

  it("are checked by a test that sees a circle and an upward import (crafted graph)", () => {
    const crafted: Edge[] = [
      { from: "billing/a.ts", to: "billing/b.ts" },
      { from: "billing/b.ts", to: "billing/a.ts" },
      { from: "load/c.ts", to: "billing/a.ts" },
      { from: "billing/a.ts", to: "load/c.ts" },
    ];
    expect(importCircles(["billing/a.ts", "billing/b.ts", "load/c.ts"], crafted)).toEqual([
      ["billing/a.ts", "billing/b.ts", "load/c.ts"],
    ]);
    expect(upwardImports(crafted, ["load", "billing"])).toEqual(["load/c.ts -> billing/a.ts"]);
  });

  it("place a sub-folder the diagram lists in its own layer, apart from its parent (crafted graph)", () => {
    const order = ["billing", "invoices/document", "store", "invoices"];
    const crafted: Edge[] = [
      { from: "store/s.ts", to: "invoices/document/d.ts" }, // store may use the document, listed before it
      { from: "invoices/i.ts", to: "invoices/document/d.ts" }, // the parent uses its earlier sub-folder
      { from: "invoices/document/d.ts", to: "store/s.ts" }, // upward: store comes after the sub-folder
      { from: "invoices/document/d.ts", to: "invoices/i.ts" }, // upward: into its own parent, listed later
      { from: "invoices/document/deep/e.ts", to: "invoices/document/d.ts" }, // one layer: a folder inside it
    ];
    expect(folderOf("invoices/document/deep/e.ts", order)).toBe("invoices/document");
    expect(folderOf("invoices/render/r.ts", order)).toBe("invoices");
    expect(upwardImports(crafted, order)).toEqual([
      "invoices/document/d.ts -> store/s.ts",
      "invoices/document/d.ts -> invoices/i.ts",
    ]);
  });
});
