import { describe, expect, it } from "vitest";
import { FetchError } from "../../src/index.js";
import { displayUrl, redactError, redactText } from "../../src/fetch/redact.js";

describe("redact", () => {
  it.each([
    {
      url: "https://user:pa55word@cloud.example.com:8443/restmachine/x?authkey=abc&start=1#frag",
      shown: "https://cloud.example.com:8443/restmachine/x",
    },
    { url: "http://127.0.0.1:1/dl?authkey=k", shown: "http://127.0.0.1:1/dl" },
    { url: "not a url", shown: "<invalid URL>" },
  ])("a URL is shown without user info, query or fragment ($shown)", ({ url, shown }) => {
    expect(displayUrl(url)).toBe(shown);
  });

  it.each([
    { text: "login as alice-admin failed", secrets: ["alice-admin"], out: "login as *** failed" },
    { text: "body: password=p%40ss%2Fw0rd&x=1", secrets: ["p@ss/w0rd"], out: "body: password=***&x=1" },
    { text: "form: q=a+b+secret", secrets: ["a b secret"], out: "form: q=***" },
    { text: 'echo {"pw":"a\\"b<c"}', secrets: ['a"b<c'], out: 'echo {"pw":"***"}' },
    { text: "echo <b>a&quot;b&lt;c</b>", secrets: ['a"b<c'], out: "echo <b>***</b>" },
    { text: "echo a%2522b%253Cc", secrets: ['a"b<c'], out: "echo ***" },
    {
      text: `basic ${Buffer.from("me:long-secret-42").toString("base64")}`,
      secrets: ["long-secret-42"],
      out: "basic ***",
    },
    // secrets shorter than 4 characters would garble ordinary text: left alone
    { text: "HTTP 401 from host", secrets: ["401"], out: "HTTP 401 from host" },
  ])("every form of a secret is replaced ($out)", ({ text, secrets, out }) => {
    expect(redactText(text, secrets)).toBe(out);
  });

  it("a whole cause chain is cleaned, stacks included", () => {
    const inner = new Error("socket to https://h/?authkey=key-123456 reset");
    const outer = new FetchError("FETCH_NETWORK", "request failed for key-123456", { cause: inner });
    const nonError = new FetchError("FETCH_HTTP", "x", { cause: "text cause key-123456" });
    redactError(outer, ["key-123456"]);
    redactError(nonError, ["key-123456"]);
    expect(outer.message).toBe("request failed for ***");
    expect(outer.stack).not.toContain("key-123456");
    expect(inner.message).toBe("socket to https://h/?authkey=*** reset");
    expect(inner.stack).not.toContain("key-123456");
    expect(nonError.cause).toBe("text cause ***");
  });
});
