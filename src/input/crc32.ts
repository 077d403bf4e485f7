import * as zlib from "node:zlib";

let table: Uint32Array | undefined;

function crc32Table(): Uint32Array {
  table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32 (zip's) of `bytes`, continuing from `crc` (default 0): zlib's when Node has it (≥ 20.15). */
export function crc32(bytes: Uint8Array, crc = 0): number {
  if (typeof zlib.crc32 === "function") return zlib.crc32(bytes, crc);
  const t = table ?? crc32Table();
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
