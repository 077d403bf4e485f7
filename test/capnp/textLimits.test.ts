import { describe, expect, it } from "vitest";
import { CapnpError } from "../../src/capnp/CapnpError.js";
import { DEFAULT_MAX_TEXT_BYTES } from "../../src/capnp/DecodeOptions.js";
import { decodeAccount } from "../../src/capnp/decodeAccount.js";
import { encodeAccount } from "../../src/generate/encodeAccount.js";
import { pack } from "./words.js";
import { sharedTextAccount } from "../helpers/sharedText.js";
import { vm } from "../helpers/warehouse.js";

const withImage = (imageName: string) =>
  encodeAccount({
    accountId: 2,
    cloudspaces: [{ cloudSpaceId: 1, accountId: 2, state: "DEPLOYED", machines: [vm(1, { imageName })] }],
  });

function failure(run: () => unknown): { code: string; message: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof CapnpError)) throw error;
    return { code: error.code, message: error.message };
  }
}

describe("the text limit (64 KiB unless set)", () => {
  it("takes a text of the limit and refuses one byte more, naming the file, the text and the limit", () => {
    expect(DEFAULT_MAX_TEXT_BYTES).toBe(65536);
    const at = "é".repeat(DEFAULT_MAX_TEXT_BYTES / 2); // bytes of UTF-8, not characters
    expect(
      decodeAccount(withImage(at), { name: "2/2026/10/1/0/account_capnp.bin" }).cloudspaces[0]!.machines[0]!.imageName,
    ).toBe(at);
    expect(failure(() => decodeAccount(withImage(`${at}x`), { name: "2/2026/10/1/0/account_capnp.bin" }))).toEqual({
      code: "CAPNP_TEXT_LIMIT",
      message: expect.stringMatching(
        /^2\/2026\/10\/1\/0\/account_capnp\.bin: text at segment 0 word \d+ is 65537 bytes, more than the text limit of 65536 bytes/,
      ),
    });
  });

  it("follows maxTextBytes, both ways", () => {
    expect(failure(() => decodeAccount(withImage("ubuntu-22.04"), { maxTextBytes: 11 }))?.code).toBe(
      "CAPNP_TEXT_LIMIT",
    );
    const long = "x".repeat(100_000);
    expect(decodeAccount(withImage(long), { maxTextBytes: 100_000 }).cloudspaces[0]!.machines[0]!.imageName).toBe(long);
  });
});

describe("texts shared by several pointers", () => {
  it("a file's texts may not decode to more bytes than the file holds: 7 machines naming one 60 KB image is refused", () => {
    const bytes = sharedTextAccount(2, 7, 60_000);
    expect(bytes.length).toBeLessThan(7 * 60_000);
    expect(failure(() => decodeAccount(bytes, { name: "shared.bin", maxTextBytes: 10 ** 9 }))).toEqual({
      code: "CAPNP_EXPANSION_LIMIT",
      message: expect.stringContaining(
        `shared.bin: the message's texts decode to more than its ${bytes.length} bytes (pointers sharing one text?)`,
      ),
    });
    // the same, packed: the limit is the packed file's bytes
    expect(failure(() => decodeAccount(pack(bytes), { packed: true, maxTextBytes: 10 ** 9 }))?.code).toBe(
      "CAPNP_EXPANSION_LIMIT",
    );
  });

  it("takes a file whose every text is its own, as the platform writes them, and short texts shared (they fit the file)", () => {
    const own = decodeAccount(sharedTextAccount(2, 1, 60_000, 7));
    expect(own.cloudspaces[0]!.machines.map((m) => m.imageName.length)).toEqual(Array(7).fill(60_000));
    const short = decodeAccount(sharedTextAccount(2, 7, 10));
    expect(short.cloudspaces[0]!.machines.map((m) => [m.type, m.status, m.imageName.length])).toEqual(
      Array(7).fill(["vm", "RUNNING", 10]),
    );
  });
});
