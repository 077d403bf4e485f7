// List-kind swaps (issue 14): copies of a real message whose cloud-space or machine list
// pointer is given another element size (Void, bytes, words, pointers, composite...) and
// another count, the shapes that make a tiny file read as many empty structs. Plain JS so
// that the mutation fuzz (vitest) and the decode bench (node on dist/) share it.

/** The schema's size of a cloud space and of a machine, words. */
const CLOUD_SPACE_WORDS = 3;
const MACHINE_WORDS = 7;
/** The traversal limit's floor, words: the counts that filled it made 9,361 empty machines. */
const TRAVERSAL_FLOOR_WORDS = 65536;

/**
 * Where the cloud-space list (Account roots) and each cloud space's machine list are described:
 * the byte offset of the word holding the element size and count (a near pointer, a far
 * pointer's landing pad, or a double-far pad's tag), with the schema size of the element.
 * @param {Uint8Array} bytes a standard-framed message (not packed) the reference wrote
 * @param {"Account" | "CloudSpace"} root
 * @returns {{ at: number; elementWords: number }[]}
 */
export function listPointerWords(bytes, root) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const segments = view.getUint32(0, true) + 1;
  const starts = [];
  let at = 8 * (Math.floor(segments / 2) + 1);
  for (let s = 0; s < segments; s++) {
    starts.push(at);
    at += 8 * view.getUint32(4 + 4 * s, true);
  }
  // The word describing the object a pointer reaches, and the object's first byte.
  const resolve = (pointer) => {
    const lo = view.getInt32(pointer, true);
    if ((lo & 3) !== 2) return { describing: pointer, target: pointer + 8 + (lo >> 2) * 8 };
    const pad = starts[view.getUint32(pointer + 4, true)] + (lo >>> 3) * 8;
    if ((lo & 4) === 0) return { describing: pad, target: pad + 8 + (view.getInt32(pad, true) >> 2) * 8 };
    return {
      describing: pad + 8,
      target: starts[view.getUint32(pad + 4, true)] + (view.getUint32(pad, true) >>> 3) * 8,
    };
  };
  const isNull = (pointer) => view.getUint32(pointer, true) === 0 && view.getUint32(pointer + 4, true) === 0;
  const struct = (pointer) => {
    const { describing, target } = resolve(pointer);
    return { position: target, dataWords: view.getUint16(describing + 4, true) };
  };
  const out = [];
  const machinesOf = (position, dataWords) => {
    const pointer = position + 8 * dataWords; // CloudSpace.machines is ptr[0]
    if (!isNull(pointer)) out.push({ at: resolve(pointer).describing, elementWords: MACHINE_WORDS });
  };
  const rootStruct = struct(starts[0]);
  if (root === "CloudSpace") {
    machinesOf(rootStruct.position, rootStruct.dataWords);
    return out;
  }
  const spacesPointer = rootStruct.position + 8 * rootStruct.dataWords; // Account.cloudspaces is ptr[0]
  if (isNull(spacesPointer)) return out;
  const { describing, target } = resolve(spacesPointer);
  out.push({ at: describing, elementWords: CLOUD_SPACE_WORDS });
  const count = view.getUint32(target, true) >>> 2; // the composite tag
  const dataWords = view.getUint16(target + 4, true);
  const step = 8 * (dataWords + view.getUint16(target + 6, true));
  for (let i = 0; i < count; i++) machinesOf(target + 8 + i * step, dataWords);
  return out;
}

/**
 * `count` copies of `bytes`, each with one list of `listPointerWords` given a random element
 * size (0–7) and a count: its own, a small one, one just under what fills the traversal
 * limit's floor, or any up to 2^29 − 1.
 * @param {Uint8Array} bytes
 * @param {"Account" | "CloudSpace"} root
 * @param {() => number} rand uniform in [0, 1)
 * @param {number} count
 * @returns {Uint8Array[]}
 */
export function listKindSwaps(bytes, root, rand, count) {
  const lists = listPointerWords(bytes, root);
  if (lists.length === 0) throw new Error("the message has no cloud-space or machine list to swap");
  const out = [];
  for (let i = 0; i < count; i++) {
    const { at, elementWords } = lists[Math.floor(rand() * lists.length)];
    const copy = bytes.slice();
    const view = new DataView(copy.buffer);
    const hi = view.getUint32(at + 4, true);
    const r = rand();
    const elements =
      r < 0.25
        ? hi >>> 3
        : r < 0.5
          ? Math.floor(rand() * 64)
          : r < 0.8
            ? Math.floor(TRAVERSAL_FLOOR_WORDS / elementWords) - Math.floor(rand() * 16)
            : Math.floor(rand() * 2 ** 29);
    const elementSize = Math.floor(rand() * 8);
    view.setUint32(at + 4, ((elements << 3) | elementSize) >>> 0, true);
    out.push(copy);
  }
  return out;
}
