import { describe, expect, it } from "vitest";
import { dateWords, hourWords, periodWords } from "../../src/base/readableTime.js";

const OCT_1 = 1790812800; // 2026-10-01T00:00Z
const DAY = 86_400;

describe("dates and hours as a customer reads them", () => {
  it.each([
    ["October", OCT_1, OCT_1 + 31 * DAY, "1 Oct 2026 – 31 Oct 2026"],
    ["one day", OCT_1, OCT_1 + DAY, "1 Oct 2026"],
    ["across a year", OCT_1 + 92 * DAY - 4 * DAY, OCT_1 + 92 * DAY + 3 * DAY, "28 Dec 2026 – 3 Jan 2027"],
    ["hours of one day", OCT_1 + 2 * 3600, OCT_1 + 14 * 3600, "1 Oct 2026 02:00 – 14:00 UTC"],
    ["hours across days", OCT_1 + 22 * 3600, OCT_1 + DAY + 2 * 3600, "1 Oct 2026 22:00 – 2 Oct 2026 02:00 UTC"],
    ["from an hour to the end of a day", OCT_1 + 12 * 3600, OCT_1 + 2 * DAY, "1 Oct 2026 12:00 – 2 Oct 2026 24:00 UTC"],
  ])("%s: %s", (_what, start, end, words) => {
    expect(periodWords(start, end)).toBe(words);
  });

  it("an hour and a date", () => {
    expect(hourWords(OCT_1 + 14 * DAY + 3 * 3600)).toBe("15 Oct 2026 03:00 UTC");
    expect(dateWords("2026-11-02")).toBe("2 Nov 2026");
  });
});
