import { describe, expect, it } from "vitest";
import { checkEndpointId } from "../../src/invoices/document/endpointIds.js";

// An electronic address a receiving access point would reject (Peppol's PEPPOL-COMMON rules, fatal)
// is refused when the statement config is read, before any number is given. Check digits by hand:
// GLN 730001000000|1: from the right 0·3+0·1+0·3+0·1+0·3+0·1+1·3+0·1+0·3+0·1+3·3+7·1 = 19, (10 − 9) mod 10 = 1.
describe("electronic address ids, as Peppol's rules check them", () => {
  it.each([
    ["0088", "7300010000001", undefined],
    ["0088", "7640123456789", "not a GLN (scheme 0088): its check digit is 9, and GS1's is 5"],
    ["0088", "73000100000A1", "not a GLN (scheme 0088): expected digits only, e.g. 7300010000001"],
    ["0192", "974760673", undefined], // 9·2+7·3+6·4+7·5+4·6+7·7+4·2+7·3 = 200; (11 − 200 mod 11) mod 11 = 9 − … = 3
    [
      "0192",
      "974760674",
      "not a Norwegian organisation number (scheme 0192): its check digit is 4, and mod 11 gives 3",
    ],
    ["0007", "5560360793", undefined],
    ["0007", "5560360794", "not a Swedish organisation number (scheme 0007): its check digit is 4, and Luhn's is 3"],
    ["0151", "51824753556", undefined], // (5−1)·10+1·1+8·3+2·5+4·7+7·9+5·11+3·13+5·15+5·17+6·19 = 534 = 6 × 89
    [
      "0151",
      "51824753557",
      "not an Australian Business Number (scheme 0151): its weighted sum 553 is not a multiple of 89",
    ],
    ["0184", "DK12345678", undefined],
    ["0184", "12345678", undefined],
    [
      "0184",
      "1234567",
      "not a Danish CVR number (scheme 0184): expected 8 digits, or DK and 8 digits, e.g. DK12345678",
    ],
    ["0198", "12345678", "not a Danish ERST number (scheme 0198): expected DK and 8 digits, e.g. DK12345678"],
    ["0096", "123456789", "not a Danish P number (scheme 0096): expected 10 digits"],
    ["0208", "0123456749", undefined],
    ["9930", "DE123456789", undefined], // a scheme without a check: taken as given
  ])("%s:%s", (scheme, id, problem) => {
    expect(checkEndpointId(scheme, id)).toBe(problem);
  });
});
