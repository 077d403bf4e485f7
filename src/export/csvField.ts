/** A CSV field (RFC 4180): quoted when it holds a quote, a comma or a line break, its quotes doubled. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
