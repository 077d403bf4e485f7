/**
 * Cap'n Proto packed encoding of a framed message (a whole number of words), with the
 * reference C++ library's choices: a zero word is followed by the count of further zero
 * words; an all-nonzero word by the count of further words with at most one zero byte,
 * copied verbatim (up to 255 either way).
 */
export function packMessage(message: Uint8Array): Uint8Array {
  const length = message.length;
  const out = new Uint8Array(Math.ceil(length / 8) * 10 + 16);
  let i = 0;
  let o = 0;
  while (i < length) {
    const tagAt = o++;
    let tag = 0;
    for (let b = 0; b < 8; b++) {
      const byte = message[i + b]!;
      if (byte !== 0) {
        tag |= 1 << b;
        out[o++] = byte;
      }
    }
    out[tagAt] = tag;
    i += 8;
    if (tag === 0) {
      let zeros = 0;
      while (zeros < 255 && i < length && isZeroWord(message, i)) {
        zeros++;
        i += 8;
      }
      out[o++] = zeros;
    } else if (tag === 0xff) {
      const runStart = i;
      let words = 0;
      while (words < 255 && i < length && zeroBytes(message, i) < 2) {
        words++;
        i += 8;
      }
      out[o++] = words;
      out.set(message.subarray(runStart, i), o);
      o += i - runStart;
    }
  }
  return out.slice(0, o);
}

function isZeroWord(bytes: Uint8Array, at: number): boolean {
  for (let b = 0; b < 8; b++) if (bytes[at + b] !== 0) return false;
  return true;
}

function zeroBytes(bytes: Uint8Array, at: number): number {
  let zeros = 0;
  for (let b = 0; b < 8; b++) if (bytes[at + b] === 0) zeros++;
  return zeros;
}
