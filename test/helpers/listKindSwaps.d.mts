/** Where the cloud-space list and each machine list are described (see listKindSwaps.mjs). */
export function listPointerWords(
  bytes: Uint8Array,
  root: "Account" | "CloudSpace",
): { at: number; elementWords: number }[];
/** `count` copies of `bytes`, each with one cloud-space or machine list given another element size and count. */
export function listKindSwaps(
  bytes: Uint8Array,
  root: "Account" | "CloudSpace",
  rand: () => number,
  count: number,
): Uint8Array[];
