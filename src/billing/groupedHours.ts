import type { DuckDBConnection, DuckDBType, DuckDBValue } from "@duckdb/node-api";
import { duckdbApi, withMemoryToSpare } from "../base/duckdb.js";
import { SumBank } from "../base/exactSum.js";
import type { Period } from "../base/period.js";
import { CONFIGURATION_FACTS, configurationAt, emptyVmFacts, factColumnsSql } from "../load/vmFacts.js";
import { BillingEngine } from "./billingEngine.js";
import type { ResolvedBillingOptions } from "./billingOptions.js";
import { cutsWithin } from "./cuts.js";
import { linesOf, partsOf } from "./engineLines.js";
import { CU, CU_ALLOCATED, LEVEL_RANK, T_BYTES, T_MACHINES_CU, T_MEM, type Counts } from "./engineSums.js";
import { Exact } from "./exact.js";
import {
  ACCOUNT_HOURS,
  CONFIGURATION_SQL,
  EXACT,
  groupedReadable,
  NotExact,
  queryValues,
  SPACES,
  VMS,
} from "./groupedFacts.js";
import { HourlyRows } from "./hourlyRows.js";
import type { BillingLine, PeriodPart } from "./lines.js";
import { readColumns, streamChunks } from "./readColumns.js";

/**
 * The hourly lines of the environment and the accounts from a warehouse's stored facts,
 * grouped in DuckDB instead of read machine-hour by machine-hour (the `grouped account hours`
 * road): what a forecast reads. An account's figures in an hour are its VMs' exact sums (the
 * summed units, Σ CU, memory, vCPUs) and formulas of its totals (CU under `aggregate`, NU), so
 * the same figures, to the bit, come from
 * - each VM's runs of consecutive hours in one configuration (the facts but the bytes,
 *   `CONFIGURATION_FACTS`): DuckDB gives, per VM and configuration, a bitmap of its hours
 *   (64 a row), and the account's exact sums follow its VMs as they come (+ their figures) and
 *   go (− them), the per-VM formulas applied once per configuration; a sum of exact terms does
 *   not depend on the order they were added or taken away in (`SumBank`);
 * - per account-hour, the Σ of its VMs' and gateways' external bytes and its gateways' public
 *   IPs: whole numbers, summed exactly by DuckDB.
 * The hours are read in the same cloud spaces as the engine's (those of their account-hour).
 */

/**
 * One scan of the VM-hours of the period (their cloud space listed in their account-hour), two
 * groupings: per account-hour, Σ external bytes of its VMs and those that are not whole numbers
 * (or negative); per VM (account, cloud space, machine), configuration and block of 64 hours
 * from `$start` (the 64 written in `RUNS`), the bitmap of its hours (two words: hours 0–31 and 32–63 of the block) and its
 * VM-hours (more than the bitmap's bits when a VM has two records in an hour). `hour_epoch` is
 * -1 in the rows of the second grouping, and only there; in order (the VMs' blocks in order).
 */
const RUNS = `WITH ${SPACES}, ${VMS},
  hours AS (SELECT *, (hour_epoch - $start) // 3600 // 64 AS block, ((hour_epoch - $start) // 3600 % 64)::UBIGINT AS bit FROM vms)
  SELECT coalesce(hour_epoch, -1)::DOUBLE, account_id::DOUBLE, coalesce(cloudspace_id, -1)::DOUBLE, coalesce(machine_id, -1)::DOUBLE,
    ${CONFIGURATION_SQL}, coalesce(block, -1)::DOUBLE,
    (bit_or(1::UBIGINT << bit) & 4294967295)::DOUBLE, (bit_or(1::UBIGINT << bit) >> 32)::DOUBLE, count(*)::DOUBLE,
    sum(external_bytes)::DOUBLE, count(*) FILTER (WHERE external_bytes <> trunc(external_bytes) OR external_bytes < 0)::DOUBLE
  FROM hours
  GROUP BY GROUPING SETS ((account_id, hour_epoch), (account_id, cloudspace_id, machine_id, ${factColumnsSql(CONFIGURATION_FACTS)}, block))
  ORDER BY ALL`;

/** The columns of `RUNS` after the configuration's. */
const AFTER = 4 + CONFIGURATION_FACTS.length;

/** The types of the queries' parameters beyond the period's. */
const paramTypesOf = (): Record<string, DuckDBType> => {
  const { LIST, VARCHAR } = duckdbApi();
  return { vmType: VARCHAR, publicIpStates: LIST(VARCHAR) };
};

/** What one read of a period gives to add up hour by hour: its account-hours, and the VMs' comings and goings. */
interface HoursRead {
  /** Account ids, by their index here. */
  accounts: number[];
  /** Per account-hour, by hour then account: the account's index, the hour's index from the period's start, its bytes and its gateways' public IPs. */
  account: Int32Array;
  hour: Int32Array;
  bytes: Float64Array;
  gatewayPiu: Float64Array;
  /** The configurations of the VMs: each one's figures (`F`) and their negations (`F` more), memory and vCPUs as billed (0 in a status not billed). */
  configurations: { figures: Float64Array; memMb: number; vcpus: number }[];
  /** Per hour index, the VMs that came (+1) or went (−1) then: `[account index, configuration, ±1]` flat. */
  changes: number[][];
}

/** The key of an account-hour: exact for account indexes below 2^31 and hours below 2^21. */
const keyOf = (account: number, hour: number): number => account * 2 ** 21 + hour;

/** The account-hours of the period: their accounts, gateways' bytes and public IPs; undefined when a byte count is not a whole number. */
async function readAccountHours(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  start: number,
): Promise<Pick<HoursRead, "accounts" | "account" | "hour" | "bytes" | "gatewayPiu"> | undefined> {
  const [accountIds, hourEpochs, bytes, piu, fractional] = (await readColumns(
    connection,
    `${ACCOUNT_HOURS} ORDER BY 2, 1`,
    values,
    paramTypesOf(),
  )) as Float64Array[];
  const n = accountIds!.length;
  const accounts: number[] = [];
  const index = new Map<number, number>();
  const account = new Int32Array(n);
  const hour = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    if (fractional![r]! > 0 || bytes![r]! >= EXACT) return undefined;
    const id = accountIds![r]!;
    let a = index.get(id);
    if (a === undefined) index.set(id, (a = accounts.push(id) - 1));
    account[r] = a;
    hour[r] = (hourEpochs![r]! - start) / 3600;
  }
  return { accounts, account, hour, bytes: Float64Array.from(bytes!), gatewayPiu: piu! };
}

/** The number of bits set in a word of 32. */
function bitsOf(x: number): number {
  let v = x >>> 0;
  let n = 0;
  for (; v !== 0; n++) v = (v & (v - 1)) >>> 0;
  return n;
}

/** The comings and goings of one VM in one configuration, word by word of its hours' bitmap (see `RUNS`). */
class VmRun {
  account = -1;
  configuration = -1;
  /** The last word read, and whether its last hour was held (then the next word's first hour goes on from it). */
  private lastWord = -1;
  private carry = 0;

  constructor(
    private readonly changes: number[][],
    private readonly hours: number,
  ) {}

  private change(h: number, delta: number): void {
    if (h < this.hours) this.changes[h]!.push(this.account, this.configuration, delta);
  }

  /** Starts another VM or configuration (the one before goes, when its last word ended held). */
  begin(account: number, configuration: number): void {
    this.end();
    this.account = account;
    this.configuration = configuration;
    this.lastWord = -1;
    this.carry = 0;
  }

  /** The hours `32 × word + (0..31)` held (the bits of `x`): where the VM came (its bit set, the one before not) or went. */
  word(word: number, x: number): void {
    if (word > this.lastWord + 1 && this.carry !== 0) {
      this.change(32 * (this.lastWord + 1), -1);
      this.carry = 0;
    }
    let changed = (x ^ ((x << 1) | this.carry)) >>> 0;
    while (changed !== 0) {
      const bit = 31 - Math.clz32(changed & -changed);
      this.change(32 * word + bit, (x >>> bit) & 1 ? 1 : -1);
      changed = (changed & (changed - 1)) >>> 0;
    }
    this.carry = x >>> 31;
    this.lastWord = word;
  }

  /** Ends the last VM: it goes after its last word when that ended held. */
  end(): void {
    if (this.carry !== 0) this.change(32 * (this.lastWord + 1), -1);
    this.carry = 0;
  }
}

/**
 * Reads the VMs of the period (see `RUNS`), a chunk at a time (their bitmaps are many at 20,000
 * machines: none is kept): their bytes into the account-hours', and when each came and went in
 * each configuration; false when a count is not exact (bytes not whole, a total of 2^53 or more,
 * a VM with two records in an hour).
 */
async function readRuns(
  connection: DuckDBConnection,
  values: Record<string, DuckDBValue>,
  engine: BillingEngine,
  hours: number,
  read: HoursRead,
): Promise<boolean> {
  const byKey = new Map<number, number>();
  for (let r = 0; r < read.account.length; r++) byKey.set(keyOf(read.account[r]!, read.hour[r]!), r);
  const accountIndex = new Map(read.accounts.map((id, a) => [id, a]));
  const configurations = new Configurations(engine, read.configurations);
  const start = Number(values.start);
  const gatewayBytes = Float64Array.from(read.bytes);
  try {
    await withMemoryToSpare(connection, async () => {
      // run again with more memory: from the start
      read.bytes.set(gatewayBytes);
      for (const list of read.changes) list.length = 0;
      const run = new VmRun(read.changes, hours);
      const last = { account: Number.NaN, cloudspace: Number.NaN, machine: Number.NaN };
      await streamChunks(connection, RUNS, values, paramTypesOf(), (columns) => {
        const [hourEpochs, accountIds, cloudspaceIds, machineIds] = columns as Float64Array[];
        const facts = columns.slice(4, AFTER);
        const [blocks, low, high, counts, bytes, fractional] = columns.slice(AFTER) as Float64Array[];
        for (let r = 0; r < hourEpochs!.length; r++) {
          if (fractional![r]! > 0) throw new NotExact();
          const a = accountIndex.get(accountIds![r]!)!;
          if (hourEpochs![r] !== -1) {
            const k = byKey.get(keyOf(a, (hourEpochs![r]! - start) / 3600))!;
            if ((read.bytes[k]! += bytes![r]!) >= EXACT) throw new NotExact();
            continue;
          }
          if (bitsOf(low![r]!) + bitsOf(high![r]!) !== counts![r]!) throw new NotExact();
          // rows of one VM and configuration follow each other, its blocks in order
          const [cloudspace, machine] = [cloudspaceIds![r]!, machineIds![r]!];
          if (
            a !== last.account ||
            cloudspace !== last.cloudspace ||
            machine !== last.machine ||
            !configurations.same(facts, r)
          ) {
            Object.assign(last, { account: a, cloudspace, machine });
            run.begin(a, configurations.of(facts, r));
          }
          run.word(2 * blocks![r]!, low![r]!);
          run.word(2 * blocks![r]! + 1, high![r]!);
        }
      });
      run.end();
    });
  } catch (error) {
    if (error instanceof NotExact) return false;
    throw error;
  }
  return true;
}

/** The configurations of `RUNS`' rows (their columns of `CONFIGURATION_FACTS`): each one's figures computed once. */
class Configurations {
  private readonly index = new Map<string, number>();
  /** The facts of the configuration looked up last. */
  private last: unknown[] = [];

  constructor(
    private readonly engine: BillingEngine,
    private readonly list: HoursRead["configurations"],
  ) {}

  /** True when row `r` of the columns `facts` is of the configuration looked up last. */
  same(facts: ArrayLike<unknown>[], r: number): boolean {
    for (let k = 0; k < facts.length; k++) if (facts[k]![r] !== this.last[k]) return false;
    return true;
  }

  /** The index of row `r`'s configuration in the list. */
  of(facts: ArrayLike<unknown>[], r: number): number {
    const values = (this.last = facts.map((column) => column[r]));
    const key = values.join("\u0000");
    let c = this.index.get(key);
    if (c !== undefined) return c;
    const vm = configurationAt(facts, 0, r, emptyVmFacts()); // the bytes stay 0: they are the hour's
    const figures = new Float64Array(2 * this.engine.F);
    this.engine.vmFigures(figures, 0, vm);
    for (let k = 0; k < this.engine.F; k++) figures[this.engine.F + k] = -figures[k]!;
    const { memMb, vcpus } = this.engine.vm;
    this.index.set(key, (c = this.list.push({ figures, memMb, vcpus }) - 1));
    return c;
  }
}

/** What a read of hours also bills: the period from `start` on, cut at `splitAt` (see `groupedAccountHours`). */
export interface BilledFrom {
  start: number;
  splitAt: readonly number[];
}

/** The account lines of the period billed, and of its parts when it is cut. */
export interface BilledAccountLines {
  lines: BillingLine[];
  parts: PeriodPart[] | undefined;
}

/**
 * Adds up the hours read (see `HoursRead`), in order: each account-hour's totals from its VMs
 * present then, its line and the environment's given to `onHour` as the engine gives them
 * (`HourlyRows`: the environment's first, allocated the Σ of its accounts' CU), and, from
 * `billedFrom` on, the account-hour as a sample of its account in `engine`, as the engine's `add` does.
 */
function addHours(
  engine: BillingEngine,
  read: HoursRead,
  start: number,
  billedFrom: number,
  onHour: (rows: HourlyRows) => void,
): void {
  const { F, L } = engine;
  const running = new SumBank(L * read.accounts.length);
  running.alloc(L * read.accounts.length);
  const vcpus = new Float64Array(read.accounts.length);
  const bank = new SumBank(2 * L);
  const rows = new HourlyRows(engine.figureNames);
  const f = new Float64Array(F);
  const environment = new Float64Array(F);
  const counts: Counts = { vcpus: 0, gatewayPiu: 0 };
  const environmentCounts: Counts = { vcpus: 0, gatewayPiu: 0 };
  // the environment's allocated CU is the Σ of its accounts' as the reports print them (`HourlyOutput`); they repeat
  const decimals = new Map<number, Exact>();
  const decimalOf = (x: number): Exact => {
    let d = decimals.get(x);
    if (d === undefined) decimals.set(x, (d = Exact.fromNumber(x)));
    return d;
  };
  let r = 0;
  for (let h = 0; h < read.changes.length; h++) {
    const changes = read.changes[h]!;
    for (let k = 0; k < changes.length; k += 3) {
      const [a, c, delta] = [changes[k]!, changes[k + 1]!, changes[k + 2]!];
      const configuration = read.configurations[c]!;
      // a VM that goes takes its figures away: their negations added, exactly
      engine.addVmTotals(running, L * a, configuration.figures, delta > 0 ? 0 : F);
      running.add(L * a + T_MEM, delta * configuration.memMb);
      vcpus[a]! += delta * configuration.vcpus;
    }
    if (r === read.hour.length || read.hour[r] !== h) continue;
    const hourEpoch = start + h * 3600;
    rows.begin(hourEpoch);
    bank.truncate(0);
    const totals = bank.alloc(L);
    environmentCounts.vcpus = environmentCounts.gatewayPiu = 0;
    let allocated = Exact.ZERO;
    for (; r < read.hour.length && read.hour[r] === h; r++) {
      const a = read.account[r]!;
      const at = bank.alloc(L);
      for (let k = T_MACHINES_CU + 1; k < L; k++) if (k !== T_BYTES) bank.addSum(at + k, running, L * a + k);
      bank.set(at + T_BYTES, read.bytes[r]!);
      counts.vcpus = vcpus[a]!;
      counts.gatewayPiu = read.gatewayPiu[r]!;
      engine.levelFigures(bank, at, counts, f);
      f[CU_ALLOCATED] = f[CU]!;
      rows.push(LEVEL_RANK.account, read.accounts[a]!, Number.NaN, Number.NaN, f, 0);
      allocated = allocated.add(decimalOf(f[CU_ALLOCATED]!));
      engine.addTotals(bank, totals, bank, at);
      environmentCounts.vcpus += counts.vcpus;
      environmentCounts.gatewayPiu += counts.gatewayPiu;
      if (hourEpoch >= billedFrom)
        engine.addLevelSample(engine.accountOf(engine.partOf(hourEpoch), read.accounts[a]!).entity, f, bank, at);
    }
    engine.levelFigures(bank, totals, environmentCounts, environment);
    environment[CU_ALLOCATED] = allocated.toNumber();
    rows.setRow(0, LEVEL_RANK.environment, Number.NaN, Number.NaN, Number.NaN, environment, 0);
    onHour(rows);
  }
}

/**
 * Reads the hours `[start, end)` of every account grouped (see the top of this file) and gives
 * each hour's lines of the environment and the accounts to `onHour` as rows (`HourlyRows`, as
 * the billing engine gives them, the same figures to the bit), hours ascending; with `billed`,
 * also bills the account lines of the hours from `billed.start` on, cut at `billed.splitAt`, as
 * a billing pass of those hours gives them. Undefined, having given nothing, when the grouped
 * figures would not be exact (a byte count not whole, a total of 2^53 or more, a VM with two
 * records in an hour) or the warehouse's facts cannot be read grouped (`groupedReadable`):
 * the hours are then to be read through the engine.
 */
export async function groupedAccountHours(
  connection: DuckDBConnection,
  request: {
    start: number;
    end: number;
    billed?: BilledFrom;
    options: ResolvedBillingOptions;
    onHour: (rows: HourlyRows) => void;
  },
): Promise<{ billed: BilledAccountLines | undefined } | undefined> {
  const { start, end, billed, options } = request;
  const { units, cuRollup } = options;
  if (!(await groupedReadable(connection, units))) return undefined;
  const period: Period = { start: billed?.start ?? start, end };
  const splitAt = cutsWithin(billed?.splitAt, period);
  const engine = new BillingEngine(units, cuRollup, undefined, false, splitAt);
  const values = queryValues({ start, end }, units, []);
  const accountHours = await readAccountHours(connection, values, start);
  if (accountHours === undefined) return undefined;
  const hours = Math.max(0, Math.ceil((end - start) / 3600));
  const read: HoursRead = {
    ...accountHours,
    configurations: [],
    changes: Array.from({ length: hours }, () => []),
  };
  if (!(await readRuns(connection, values, engine, hours, read))) return undefined;
  addHours(engine, read, start, billed === undefined ? Number.POSITIVE_INFINITY : period.start, request.onHour);
  if (billed === undefined) return { billed: undefined };
  const lines = engine.finish();
  return {
    billed: {
      lines: linesOf(lines, options, ["account"]),
      parts: partsOf(engine, period, splitAt, options, ["account"]),
    },
  };
}
