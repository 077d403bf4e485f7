/**
 * Valid Unicode text: a lone surrogate (JSON's `"\ud800"`, which no UTF-8 file, PDF or DuckDB's
 * JSON can hold) becomes U+FFFD, the replacement character.
 */
export function wellFormed(value: string): string {
  return value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}
