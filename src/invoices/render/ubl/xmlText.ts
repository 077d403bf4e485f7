import { create } from "xmlbuilder2";
import type { XMLBuilder } from "xmlbuilder2/lib/interfaces.js";

/** An element as data: child elements by name (in order; a list repeats one), `@name` attributes, `#` its text. */
export interface XmlNode {
  [name: string]: string | XmlNode | XmlNode[];
}

/**
 * A text as XML 1.0 may hold it: characters XML forbids (C0 controls other than tab and line
 * breaks, U+FFFE, U+FFFF, lone surrogates) become U+FFFD, so a hostile name cannot make the
 * document unreadable. `&` is written `&amp;` here: xmlbuilder2's writer escapes `<`, `>` and an
 * `&` it does not take for the start of an entity, and leaves `&amp;`, `&lt;`... as they are, so a
 * name holding the text `&amp;` would otherwise be read back as `&`.
 */
export function xmlText(text: string): string {
  return text
    .replaceAll("&", "&amp;")
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      "\uFFFD",
    );
}

function add(parent: XMLBuilder, name: string, node: string | XmlNode): void {
  if (typeof node === "string") {
    parent.ele(name).txt(node);
    return;
  }
  const element = parent.ele(name);
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith("@")) element.att(key.slice(1), value as string);
    else if (key === "#") element.txt(value as string);
    else for (const child of Array.isArray(value) ? value : [value]) add(element, key, child);
  }
}

/**
 * An XML document (UTF-8, indented) of one root element built with xmlbuilder2's element and
 * text calls, which escape markup (texts from people go through `xmlText` first). The root's
 * `@xmlns...` attributes declare its namespaces.
 */
export function xmlDocument(root: string, node: XmlNode): string {
  const document = create({ version: "1.0", encoding: "UTF-8" });
  add(document, root, node);
  return document.end({ prettyPrint: true });
}
