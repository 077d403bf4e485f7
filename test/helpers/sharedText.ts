import * as L from "../../src/capnp/layout.js";

/**
 * An `Account` message of one cloud space with `images` image-name texts of `imageBytes`
 * bytes each, every one shared by `machines` VMs (ids from 1, 2 vCPUs, 2048 MB): a crafted
 * file, as the platform writes each text once per machine, while Cap'n Proto lets pointers
 * share a target. Type "vm", status "RUNNING" and the state "DEPLOYED" are shared the same way.
 */
export function sharedTextAccount(
  accountId: number,
  machinesPerImage: number,
  imageBytes: number,
  images = 1,
): Uint8Array {
  const machines = machinesPerImage * images;
  const texts = ["vm", "RUNNING", "DEPLOYED"].map((t) => new TextEncoder().encode(`${t}\0`));
  const words = (n: number) => Math.ceil(n / 8);
  // segment words: root pointer, account (1 + 1), list tag, cloud space (1 + 2), machine tag, machines, texts
  const machinesAt = 8;
  const textsAt = machinesAt + machines * L.VMACHINE_WORDS;
  const textAt = [
    textsAt,
    textsAt + words(texts[0]!.length),
    textsAt + words(texts[0]!.length) + words(texts[1]!.length),
  ];
  const imageAt = textAt[2]! + words(texts[2]!.length);
  const imageWords = words(imageBytes + 1);
  const segmentWords = imageAt + images * imageWords;
  const bytes = new Uint8Array(8 + segmentWords * 8);
  const view = new DataView(bytes.buffer);
  view.setUint32(4, segmentWords, true);
  const word = (at: number) => 8 + at * 8;
  const structPtr = (at: number, target: number, data: number, pointers: number) => {
    view.setUint32(word(at), ((target - at - 1) << 2) >>> 0, true);
    view.setUint32(word(at) + 4, data | (pointers << 16), true);
  };
  const listPtr = (at: number, target: number, elementSize: number, count: number) => {
    view.setUint32(word(at), (((target - at - 1) << 2) | 1) >>> 0, true);
    view.setUint32(word(at) + 4, (count * 8 + elementSize) >>> 0, true);
  };
  const textPtr = (at: number, target: number, length: number) => listPtr(at, target, 2, length);
  structPtr(0, 1, 1, 1);
  view.setUint32(word(1), accountId, true);
  listPtr(2, 3, 7, 3); // composite: its tag at word 3, then 3 words of elements
  view.setUint32(word(3), 1 << 2, true);
  view.setUint32(word(3) + 4, 1 | (2 << 16), true);
  view.setInt32(word(4), 1, true);
  view.setInt32(word(4) + 4, accountId, true);
  listPtr(5, 7, 7, machines * L.VMACHINE_WORDS); // its tag at word 7
  textPtr(6, textAt[2]!, texts[2]!.length);
  view.setUint32(word(7), machines << 2, true);
  view.setUint32(word(7) + 4, 2 | (5 << 16), true);
  for (let m = 0; m < machines; m++) {
    const at = machinesAt + m * L.VMACHINE_WORDS;
    view.setInt32(word(at) + L.VMACHINE_ID, m + 1, true);
    view.setInt8(word(at) + L.VMACHINE_VCPUS, 2);
    view.setFloat32(word(at) + L.VMACHINE_CPU_MINUTES, 1, true);
    view.setFloat32(word(at) + L.VMACHINE_MEM, 2048, true);
    const pointers = at + 2;
    textPtr(pointers + L.VMACHINE_TYPE, textAt[0]!, texts[0]!.length);
    textPtr(pointers + L.VMACHINE_IMAGE_NAME, imageAt + Math.floor(m / machinesPerImage) * imageWords, imageBytes + 1);
    textPtr(pointers + L.VMACHINE_STATUS, textAt[1]!, texts[1]!.length);
  }
  texts.forEach((t, i) => bytes.set(t, word(textAt[i]!)));
  for (let i = 0; i < images; i++) {
    const at = word(imageAt + i * imageWords);
    bytes.fill(0x61 + (i % 26), at, at + imageBytes);
    new DataView(bytes.buffer).setUint32(at, i); // each image its own text
  }
  return bytes;
}
