import { describe, expect, it } from "vitest";
import { qualityPage } from "../../../src/serve/pages/qualityPage.js";
import type { AccountQuality } from "../../../src/serve/qualityData.js";
import type { AccountStatus } from "../../../src/sync/warehouseStatus.js";

const HOUR = 3600;
const T = 1790812800; // 2026-10-01T00:00Z

function account(accountId: number, change: Partial<AccountStatus> = {}): AccountQuality {
  return {
    status: {
      accountId,
      name: null,
      firstHourEpoch: T,
      lastHourEpoch: T + 99 * HOUR,
      completeUntilEpoch: T + 100 * HOUR,
      lagHours: 0,
      missing: [],
      insideLookBack: [],
      lost: [],
      acceptedLost: [],
      future: [],
      notYetSynced: null,
      late: [],
      rewritten: [],
      lastSync: null,
      ...change,
    },
    badFiles: [],
    impossibleValues: [],
  };
}

describe("the data-quality page", () => {
  it("names the accounts with nothing to report in one line, and gives a section to each account with findings", () => {
    const html = qualityPage({
      status: {
        db: "w.duckdb",
        sizeBytes: 0,
        currentHourEpoch: T + 100 * HOUR,
        period: { firstHourEpoch: T, lastHourEpoch: T + 99 * HOUR },
        accountHours: 300,
        accounts: [],
      },
      accounts: [
        account(1),
        account(2, { missing: [{ fromEpoch: T + 5 * HOUR, toEpoch: T + 6 * HOUR, hours: 2 }] }),
        account(3),
      ],
      otherBadFiles: [],
    });
    const clean = /<p class="ok" id="quality-clean">(.*?)<\/p>/.exec(html)?.[1] ?? "";
    expect(clean.replace(/<[^>]+>/g, "")).toMatch(/^Nothing to report for accounts 1, 3:/);
    expect(html).toContain('id="quality-2"><h2>Account 2');
    expect(html).toContain(
      '<h3>Missing hours</h3><ul class="compact"><li>2026-10-01T05:00:00Z to 2026-10-01T06:00:00Z (2 h)</li>',
    );
    expect(html.match(/class="account-quality"/g)).toHaveLength(1);
  });

  it("counts an account's lost hours in a Lost column beside Missing, red, never a green Missing 0 alone; accepted ones in amber", () => {
    const lost = { fromEpoch: T + 5 * HOUR, toEpoch: T + 5 * HOUR, hours: 1 };
    const html = qualityPage({
      status: {
        db: "w.duckdb",
        sizeBytes: 0,
        currentHourEpoch: T + 100 * HOUR,
        period: { firstHourEpoch: T, lastHourEpoch: T + 99 * HOUR },
        accountHours: 300,
        accounts: [],
      },
      accounts: [account(1, { lost: [lost] }), account(2, { lost: [lost], acceptedLost: [lost] })],
      otherBadFiles: [],
    });
    const headings = [...html.matchAll(/<th[^>]*>(.*?)<\/th>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, ""));
    expect(headings.indexOf("Losthours")).toBe(headings.indexOf("Missinghours") + 1);
    const rows = [...html.matchAll(/<tr>(.*?)<\/tr>/gs)].map((m) => m[1]!).filter((r) => r.includes("#quality-"));
    const cells = (row: string) => [...row.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]!);
    const lostColumn = headings.indexOf("Losthours");
    expect(cells(rows[0]!)[lostColumn]).toBe('<span class="bad">1</span>');
    expect(cells(rows[1]!)[lostColumn]).toBe('<span class="warn">1</span>');
    expect(html).toMatch(/<h3>Lost at source \(never written within the platform(&#39;|&#x27;|')s retention\)<\/h3>/);
  });
});
