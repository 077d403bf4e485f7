import type { Warehouse } from "../store/types.js";
import { warehouseStatus } from "../sync/warehouseStatus.js";
import { accountData, type AccountData } from "./accountData.js";
import { htmlAnswer, staleAnswer, type Answer } from "./answer.js";
import type { DashboardSettings } from "./dashboardSettings.js";
import { issuedFileAnswer, statementPdfAnswer, workbookAnswer } from "./downloads.js";
import { entityData } from "./entityData.js";
import { checkKnown, knownEntities, type EntityKind, type KnownEntities } from "./knownEntities.js";
import { monthsOf } from "./months.js";
import { overviewData } from "./overviewData.js";
import { accountPage } from "./pages/accountPage.js";
import { entityPage } from "./pages/entityPage.js";
import { overviewPage } from "./pages/overviewPage.js";
import { qualityPage } from "./pages/qualityPage.js";
import { qualityData } from "./qualityData.js";
import { receivablesPage } from "./pages/receivablesPage.js";
import { receivablesData } from "./receivablesData.js";
import { ResultCache } from "./resultCache.js";
import type { WarehouseQueue } from "./warehouseQueue.js";
import { warehouseVersion } from "./warehouseVersion.js";

/** Account pages kept (and computed at start): the most a dashboard keeps. */
export const ACCOUNT_PAGES = 16;

/** Who asks for a page: a client's address, or the dashboard itself (its pages computed at start). */
export type Client = string;

/**
 * The dashboard's pages, each computed once per version of the warehouse (on the queue, for
 * the client that asked first) and kept: answered again from memory, and while the warehouse
 * changed, answered marked stale as the new one is computed (`ResultCache`). A page for an id
 * or a month the warehouse does not hold is refused from the list of what it holds, without
 * computing anything.
 */
export class DashboardPages {
  private readonly answers = new ResultCache<Answer>();
  private readonly accounts = new ResultCache<AccountData>(2 * ACCOUNT_PAGES); // the latest month's under two keys each
  private readonly known = new ResultCache<KnownEntities>(1);
  /** The account page of each account's data kept (its tables are long: rendered once). */
  private readonly rendered = new WeakMap<AccountData, Answer>();
  /** The default month (the latest) at a version of the warehouse, once a page of it was computed. */
  private latest: { version: string; month: string } | undefined;
  /** The pages of the default month under way, by prefix (see `byMonth`). */
  private readonly defaults = new Map<string, Promise<unknown>>();

  constructor(
    private readonly db: string,
    private readonly settings: DashboardSettings,
    private readonly queue: WarehouseQueue,
  ) {}

  /** The overview of a month (default: the latest), kept under the month it shows too. */
  overview(client: Client, month: string | undefined): Promise<Answer> {
    return this.byMonth(this.answers, "overview|", month, async () => {
      await this.check(client, "overview", 0, month);
      return this.cached(
        client,
        `overview|${month ?? ""}`,
        async (store, version) => {
          const data = await overviewData(store, this.settings, month);
          const answer = htmlAnswer(overviewPage(data));
          if (month === undefined) this.keepAsMonth(this.answers, "overview|", version, data.month.month, answer);
          return answer;
        },
        (version) => (month === undefined ? this.sameAsDefault(this.answers, "overview|", version) : undefined),
      );
    });
  }

  /** The data-quality page. */
  quality(client: Client): Promise<Answer> {
    return this.cached(client, "quality", async (store) =>
      htmlAnswer(qualityPage(await qualityData(store, this.settings.names))),
    );
  }

  /** The receivables page: what each customer owes and its ageing (of the register as it is now: payments change it, not hours). */
  receivables(client: Client): Promise<Answer> {
    return this.queue.run(client, async (store) => htmlAnswer(receivablesPage(await receivablesData(store))));
  }

  /** The account page (its tables are long: rendered once per data). */
  async account(client: Client, id: number, month: string | undefined): Promise<Answer> {
    const { data, stale } = await this.accountData(client, id, month);
    const answer =
      this.rendered.get(data) ?? htmlAnswer(accountPage(data, { pdf: this.settings.statement !== undefined }));
    this.rendered.set(data, answer);
    return stale ? staleAnswer(answer) : answer;
  }

  /** The account's statement workbook, of the warehouse as it is now. */
  async workbook(client: Client, id: number, month: string | undefined): Promise<Answer> {
    const { data } = await this.accountData(client, id, month, true);
    return this.answers.get(
      `xlsx|${data.accountId}|${data.month.month}`,
      await warehouseVersion(this.db),
      () => workbookAnswer(data),
      true,
    ).value;
  }

  /** The account's PDF statement (a draft), of the warehouse as it is now. */
  async statementPdf(client: Client, id: number, month: string | undefined): Promise<Answer> {
    const { data } = await this.accountData(client, id, month, true);
    return statementPdfAnswer(data, this.settings.statement);
  }

  /** A file of the account's issued invoice of the month, as issued (from the register). */
  async issuedFile(client: Client, id: number, month: string | undefined, extension: "pdf" | "xml"): Promise<Answer> {
    const { data } = await this.accountData(client, id, month, true);
    return this.queue.run(client, (store) => issuedFileAnswer(store, data, extension));
  }

  /** A machine's or cloud space's page. */
  async entity(client: Client, kind: "machine" | "cloudspace", id: number, month: string | undefined): Promise<Answer> {
    await this.check(client, kind, id, month);
    return this.cached(client, `${kind}|${id}|${month}`, async (store) =>
      htmlAnswer(entityPage(await entityData(store, kind, id, month, this.settings.names, this.settings.units))),
    );
  }

  /** The months the overview offers (those of the hours held, not those dated in the future), oldest first (`YYYY-MM`). */
  months(client: Client): Promise<string[]> {
    return this.queue.run(client, async (store) => monthsOf(await warehouseStatus(store)).map((m) => m.month));
  }

  /** The ids of the accounts the warehouse holds, ascending. */
  async accountIds(client: Client): Promise<number[]> {
    const known = await this.known.get("known", await warehouseVersion(this.db), () =>
      this.queue.run(client, knownEntities),
    ).value;
    return [...known.ids.account.keys()].sort((a, b) => a - b);
  }

  /** What the warehouse holds, as kept: a NotFoundError for an id or month not held (checked again against the current version before refusing). */
  private async check(
    client: Client,
    kind: EntityKind | "overview",
    id: number,
    month: string | undefined,
  ): Promise<void> {
    const version = await warehouseVersion(this.db);
    const kept = this.known.get("known", version, () => this.queue.run(client, knownEntities));
    try {
      checkKnown(await kept.value, kind, id, month);
    } catch (error) {
      if (!kept.stale) throw error;
      // held by the warehouse as it is now, perhaps (a sync added it)
      checkKnown(
        await this.known.get("known", version, () => this.queue.run(client, knownEntities), true).value,
        kind,
        id,
        month,
      );
    }
  }

  /** An account's month; `fresh`: of the warehouse as it is now (a download), else possibly the one before a sync while it is recomputed. */
  private accountData(
    client: Client,
    id: number,
    month: string | undefined,
    fresh = false,
  ): Promise<{ data: AccountData; stale: boolean }> {
    return this.byMonth(this.accounts, `${id}|`, month, async () => {
      await this.check(client, "account", id, month);
      const version = await warehouseVersion(this.db);
      const same = month === undefined ? this.sameAsDefault(this.accounts, `${id}|`, version) : undefined;
      const { value, stale } = this.accounts.get(
        `${id}|${month ?? ""}`,
        version,
        () =>
          same ??
          this.queue.run(client, async (store) => {
            const data = await accountData(store, this.settings, id, month);
            if (month === undefined) this.keepAsMonth(this.accounts, `${id}|`, version, data.month.month, data);
            return data;
          }),
        fresh,
      );
      return { data: await value, stale };
    });
  }

  /**
   * `page()`, the page under `prefix` (`overview|`, `ID|`) of `month`. The page of the default
   * month (the latest) is kept under its month too (`keepAsMonth`): a page asked by its month
   * waits for the default month's page under way, as it may be the same (the start's overview,
   * then a visitor's `/?month=` of the latest month: computed once, where it was twice), unless
   * `cache` holds a page of that month already.
   */
  private async byMonth<T>(
    cache: ResultCache<unknown>,
    prefix: string,
    month: string | undefined,
    page: () => Promise<T>,
  ): Promise<T> {
    if (month !== undefined) {
      // a page kept (of any version: stale while a sync wrote) is answered at once, as before; the
      // default's failure is not this page's: it is computed anew
      if (!cache.holds(`${prefix}${month}`)) await this.defaults.get(prefix)?.catch(() => undefined);
      return page();
    }
    const computing = page();
    this.defaults.set(prefix, computing);
    const done = () => {
      if (this.defaults.get(prefix) === computing) this.defaults.delete(prefix);
    };
    computing.then(done, done);
    return computing;
  }

  /** Keeps `value`, the page under `prefix` of the default month `month`, as that month's page too, and that month as the default of `version`. */
  private keepAsMonth<T>(cache: ResultCache<T>, prefix: string, version: string, month: string, value: T): void {
    cache.put(`${prefix}${month}`, version, value);
    this.latest = { version, month };
  }

  /** The page under `prefix` of the default month, kept or being computed under its month (`/account/ID?month=`, then `/account/ID`), when that month is known at `version`. */
  private sameAsDefault<T>(cache: ResultCache<T>, prefix: string, version: string): Promise<T> | undefined {
    return this.latest?.version === version ? cache.peek(`${prefix}${this.latest.month}`, version) : undefined;
  }

  /** The page kept under `key`, else `same`'s (the same page kept under another key), else computed on the queue for `client`. */
  private async cached(
    client: Client,
    key: string,
    compute: (store: Warehouse, version: string) => Promise<Answer>,
    same?: (version: string) => Promise<Answer> | undefined,
  ): Promise<Answer> {
    const version = await warehouseVersion(this.db);
    const { value, stale } = this.answers.get(
      key,
      version,
      () => same?.(version) ?? this.queue.run(client, (store) => compute(store, version)),
    );
    return stale ? staleAnswer(await value) : value;
  }
}
