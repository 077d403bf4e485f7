/**
 * Keeping secrets out of messages: URLs are shown without user info and query, and every
 * error leaving the client has each secret value replaced by `***` in its message, stack
 * and cause chain.
 */

/** Secrets shorter than this are not replaced: they would garble ordinary text. */
const MIN_SECRET_LENGTH = 4;

/** A URL as shown in messages: origin and path only (no user info, no query, no fragment). */
export function displayUrl(url: URL | string): string {
  try {
    const parsed = typeof url === "string" ? new URL(url) : url;
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return "<invalid URL>";
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** A hex number matched in either case: `3c` gives `3[cC]`. */
const anyCaseHex = (hex: string) =>
  [...hex].map((d) => (/[a-f]/i.test(d) ? `[${d.toLowerCase()}${d.toUpperCase()}]` : d)).join("");

/** HTML's named references of the characters that have one in common use. */
const HTML_NAMED: Record<string, string[]> = {
  "&": ["amp"],
  "<": ["lt"],
  ">": ["gt"],
  '"': ["quot"],
  "'": ["apos"],
  " ": ["nbsp"],
};

/** JSON's short escapes. */
const JSON_SHORT: Record<string, string> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  "\b": "b",
  "\f": "f",
  "\n": "n",
  "\r": "r",
  "\t": "t",
};

/**
 * Every way one character may be written in a URL, a form, a JSON string or an HTML page, each
 * nested any number of times: itself, `%XX` per UTF-8 byte (`%253C` too), `+` for a space,
 * `\uXXXX` and `\"` (`\\\"` too), `&lt;`, `&#60;`, `&#x3c;` (`&amp;lt;` too).
 */
function characterPattern(char: string): string {
  const forms = [escapeRegExp(char)];
  forms.push(
    [...Buffer.from(char, "utf8")].map((byte) => `%(?:25)*${anyCaseHex(byte.toString(16).padStart(2, "0"))}`).join(""),
  );
  if (char === " ") forms.push("\\+");
  const units = [...Array(char.length).keys()].map((i) => char.charCodeAt(i));
  forms.push(units.map((unit) => `\\\\+u${anyCaseHex(unit.toString(16).padStart(4, "0"))}`).join(""));
  if (JSON_SHORT[char] !== undefined) forms.push(`\\\\+${escapeRegExp(JSON_SHORT[char])}`);
  const codePoint = char.codePointAt(0)!;
  const entity = (body: string) => `&(?:amp;)*${body};?`;
  forms.push(entity(`#0*${codePoint}`), entity(`#[xX]0*${anyCaseHex(codePoint.toString(16))}`));
  for (const name of HTML_NAMED[char] ?? []) forms.push(entity(name));
  return `(?:${forms.join("|")})`;
}

/**
 * The runs of base64 that appear wherever `secret` is base64-encoded, at each of the three byte
 * alignments, standard and URL-safe: a secret inside a base64 blob (`user:password`) is found too.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, "utf8");
  const forms: string[] = [];
  for (const [filler, skip] of [
    [0, 0],
    [1, 2],
    [2, 3],
  ] as const) {
    const encoded = Buffer.concat([Buffer.alloc(filler), bytes]).toString("base64");
    const core = encoded.slice(skip, Math.floor(((filler + bytes.length) * 8) / 6));
    if (core.length < 8) continue;
    forms.push(core, core.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return forms;
}

const patterns = new Map<string, RegExp>();

/** One pattern matching every known encoding of `secret` (see characterPattern, base64Forms). */
function secretPattern(secret: string): RegExp {
  let pattern = patterns.get(secret);
  if (!pattern) {
    const spelled = [...secret].map(characterPattern).join("");
    // a base64 form is replaced with the whole run of base64 around it: no fragment of it stays
    const base64 = base64Forms(secret).map((core) => `[A-Za-z0-9+/_-]*${escapeRegExp(core)}[A-Za-z0-9+/_-]*={0,2}`);
    pattern = new RegExp([spelled, ...base64].join("|"), "g");
    if (patterns.size > 100) patterns.clear();
    patterns.set(secret, pattern);
  }
  pattern.lastIndex = 0;
  return pattern;
}

/** The secrets worth looking for: long enough not to garble ordinary text. */
const lookedFor = (secrets: readonly string[]) =>
  [...new Set(secrets)].filter((secret) => secret.length >= MIN_SECRET_LENGTH);

/**
 * `text` with every occurrence of every secret replaced by `***`, however it is written: raw,
 * URL-encoded (either way, nested), JSON-escaped, HTML-escaped, base64, or a mix of these.
 */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of lookedFor(secrets)) out = out.replace(secretPattern(secret), "***");
  return out;
}

/** True when `text` holds any of `secrets` in any form {@link redactText} knows. */
export function holdsSecret(text: string, secrets: readonly string[]): boolean {
  return lookedFor(secrets).some((secret) => secretPattern(secret).test(text));
}

/**
 * Removes secrets from an error, its stack and its whole `cause` chain, in place; returns it.
 * Causes that are not Error objects are replaced by their redacted text.
 */
export function redactError<T>(error: T, secrets: readonly string[]): T {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    current.message = redactText(current.message, secrets);
    if (current.stack) current.stack = redactText(current.stack, secrets);
    const cause: unknown = current.cause;
    if (cause !== undefined && !(cause instanceof Error)) current.cause = redactText(String(cause), secrets);
    current = current.cause;
  }
  return error;
}
