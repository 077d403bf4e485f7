import { Exact } from "./exact.js";
import type { Invoice, InvoiceLine } from "./invoice.js";
import type { BillingLine, CloudspaceLine, GatewayLine, PeriodPart, Quantities } from "./lines.js";
import { PeriodParts } from "./periodParts.js";
import { lineMoneyOf, type LineMoney } from "./money.js";
import { splitAmount } from "./splitAmount.js";
import type { UnitName } from "./unitNames.js";
import { catalogUnits, countsGatewayIp, isVolume, unitDef } from "./unitCatalog.js";

/** Report lines with the gateway lines of showback, and the money of each (aligned). */
export interface Showback {
  /** The period lines in hierarchy order, with a `gateway` line after the machines of each cloud space whose gateway has NU or PIU. */
  lines: BillingLine[];
  /** The money of each line: invoices' amounts for accounts, shares below, Σ of the accounts for the environment. */
  money: (LineMoney | undefined)[];
}

/** A cloud space's gateway as a showback line: its own external traffic (NU, TiB) and public IP (PIU); 0 of the other units. */
function gatewayLine(cloudspace: CloudspaceLine, divisor: number): GatewayLine {
  const own = (u: UnitName): number =>
    isVolume(u) ? cloudspace.ownNicNu : countsGatewayIp(u) ? cloudspace.gatewayPiuHours : 0;
  const units = catalogUnits();
  return {
    level: "gateway",
    accountId: cloudspace.accountId,
    cloudspaceId: cloudspace.cloudspaceId,
    machineId: null,
    hourEpoch: null,
    name: "gateway",
    sampleHours: cloudspace.sampleHours,
    quantities: Object.fromEntries(units.map((u) => [u, isVolume(u) ? own(u) : own(u) / divisor])) as Quantities,
    unitHours: Object.fromEntries(units.map((u) => [u, own(u)])) as Quantities,
    cuSumOfMachines: 0,
    gatewayPiuHours: cloudspace.gatewayPiuHours,
    cuAllocated: 0,
    cuAllocatedHours: 0,
    ownNicNu: cloudspace.ownNicNu,
  };
}

/** What a line weighs in the split of a unit's amount: allocated CU for CU, own NICs' NU below cloud spaces, else its quantity. */
export function showbackWeight(line: BillingLine, unit: UnitName): number {
  if (unitDef(unit).rule.kind === "cu") return line.cuAllocatedHours;
  if (isVolume(unit) && (line.level === "machine" || line.level === "gateway")) return line.ownNicNu;
  return line.unitHours[unit] ?? 0;
}

/**
 * Showback money (docs/formulas.md): each account's invoice line amounts split over its cloud
 * spaces, and each cloud space's share over its machines and gateway, by the
 * largest-remainder method (`splitAmount`) with `showbackWeight` as weights (over the line's
 * price period: from `parts` when it is a part of the period), so at every level the rounded
 * amounts add up to the account's lines to the cent. Gateway lines are
 * added (also without prices) so that NU and PIU add up below cloud spaces too.
 * `lines` are period lines in hierarchy order; `divisor` is hoursPerMonth under `per: month`, else 1;
 * `period`: the billed period, with its parts' lines when a price changes within it.
 */
export function showback(
  lines: readonly BillingLine[],
  invoices: readonly Invoice[] | undefined,
  divisor: number,
  period?: { start: number; end: number; parts?: readonly PeriodPart[] },
): Showback {
  const tree = withGateways(lines, divisor);
  const out = tree.lines;
  allocateToEnvironment(out);
  if (!invoices) return { lines: out, money: out.map(() => undefined) };
  const shares = sharesOf(tree, invoices, divisor, period);
  const byAccount = new Map(invoices.map((inv) => [inv.accountId, inv]));
  const money = out.map((line): LineMoney | undefined => {
    if (line.level === "environment") return environmentMoney(invoices);
    const invoice = line.accountId === null ? undefined : byAccount.get(line.accountId);
    if (!invoice) return undefined;
    if (line.level === "account")
      return lineMoneyOf(invoice.lines.map((l) => ({ unit: l.unit, start: l.start, end: l.end, amount: l.amount })));
    const own = shares.get(line);
    return lineMoneyOf(
      invoice.lines.map((l) => ({ unit: l.unit, start: l.start, end: l.end, amount: own?.get(l) ?? Exact.ZERO })),
    );
  });
  return { lines: out, money };
}

/** The period lines with a gateway line after each cloud space's machines (when it has NU or PIU of its own), and the tree of them. */
interface LineTree {
  lines: BillingLine[];
  /** Per account: its cloud spaces' lines. */
  cloudspacesOf: Map<number, CloudspaceLine[]>;
  /** Per cloud space: its machines' and gateway's lines. */
  childrenOf: Map<CloudspaceLine, BillingLine[]>;
}

/** `lines` (in hierarchy order) with their gateway lines, and the tree of cloud spaces and their children. */
function withGateways(lines: readonly BillingLine[], divisor: number): LineTree {
  const out: BillingLine[] = [];
  const cloudspacesOf = new Map<number, CloudspaceLine[]>();
  const childrenOf = new Map<CloudspaceLine, BillingLine[]>();
  let cloudspace: CloudspaceLine | undefined;
  const closeCloudspace = () => {
    if (cloudspace && (cloudspace.ownNicNu > 0 || cloudspace.gatewayPiuHours > 0)) {
      const gateway = gatewayLine(cloudspace, divisor);
      out.push(gateway);
      childrenOf.get(cloudspace)!.push(gateway);
    }
    cloudspace = undefined;
  };
  for (const line of lines) {
    if (
      line.level !== "machine" ||
      line.cloudspaceId !== cloudspace?.cloudspaceId ||
      line.accountId !== cloudspace.accountId
    )
      closeCloudspace();
    out.push(line);
    if (line.level === "cloudspace") {
      cloudspace = line;
      childrenOf.set(line, []);
      const list = cloudspacesOf.get(line.accountId!) ?? [];
      list.push(line);
      cloudspacesOf.set(line.accountId!, list);
    } else if (line.level === "machine") {
      childrenOf.get(cloudspace!)?.push(line);
    }
  }
  closeCloudspace();
  return { lines: out, cloudspacesOf, childrenOf };
}

/**
 * Each invoice line's amount split over the account's cloud spaces, and each cloud space's
 * share over its children (largest remainder, `showbackWeight` over the line's price period):
 * per line of the tree, its share of each invoice line.
 */
function sharesOf(
  { cloudspacesOf, childrenOf }: LineTree,
  invoices: readonly Invoice[],
  divisor: number,
  period: { start: number; end: number; parts?: readonly PeriodPart[] } | undefined,
): Map<BillingLine, Map<InvoiceLine, Exact>> {
  const shares = new Map<BillingLine, Map<InvoiceLine, Exact>>();
  const cloudspaceOf = new Map<BillingLine, CloudspaceLine>();
  for (const [cs, children] of childrenOf) for (const c of children) if (c.level === "gateway") cloudspaceOf.set(c, cs);
  const split = (
    amount: Exact,
    decimals: number,
    line: InvoiceLine,
    children: BillingLine[],
    periodParts: PeriodParts,
  ) => {
    const scale = 10n ** BigInt(decimals);
    const minor = amount.mul(Exact.of(scale));
    const weight = (c: BillingLine) => {
      const cs = cloudspaceOf.get(c);
      return cs === undefined
        ? periodParts.over(c, line.start, line.end, (l) => showbackWeight(l, line.unit))
        : periodParts.over(cs, line.start, line.end, (l) => showbackWeight(gatewayLine(l, divisor), line.unit));
    };
    const parts = splitAmount(
      minor.num / minor.den,
      children.map((c) => ({ id: idOf(c), weight: weight(c) })),
    );
    children.forEach((c, k) => {
      let own = shares.get(c);
      if (!own) shares.set(c, (own = new Map()));
      own.set(line, Exact.of(parts[k]!, scale));
    });
  };
  for (const invoice of invoices) {
    const periodParts = new PeriodParts(period ?? invoice, period?.parts);
    const cloudspaces = cloudspacesOf.get(invoice.accountId) ?? [];
    for (const line of invoice.lines) {
      split(line.amount, invoice.decimals, line, cloudspaces, periodParts);
      for (const cs of cloudspaces)
        split(shares.get(cs)!.get(line)!, invoice.decimals, line, childrenOf.get(cs)!, periodParts);
    }
  }
  return shares;
}

/** The environment's money: each unit's Σ over the invoices, in catalog order; none when they are in two currencies (never added). */
function environmentMoney(invoices: readonly Invoice[]): LineMoney | undefined {
  if (new Set(invoices.map((inv) => inv.currency)).size > 1) return undefined;
  const units = new Map<UnitName, Exact>();
  for (const inv of invoices)
    for (const l of inv.lines) units.set(l.unit, (units.get(l.unit) ?? Exact.ZERO).add(l.amount));
  return lineMoneyOf(
    catalogUnits()
      .filter((u) => units.has(u))
      .map((unit) => ({ unit, amount: units.get(unit)! })),
  );
}

/**
 * The environment's allocated CU is the Σ of its accounts' CU (what they are billed on), not
 * its own CU, which under `aggregate` is less: so the allocated CU of every level adds up to
 * the level above. Replaces the environment line (lines are shared with the caller's); billed
 * alone (no account lines), the environment keeps the engine's figure, its own CU.
 */
function allocateToEnvironment(lines: BillingLine[]): void {
  const at = lines.findIndex((l) => l.level === "environment");
  const accounts = lines.filter((l) => l.level === "account");
  if (at < 0 || accounts.length === 0) return; // the environment alone: its own CU, as billed
  const sum = (pick: (l: BillingLine) => number) =>
    accounts.reduce((a, l) => a.add(Exact.fromNumber(pick(l))), Exact.ZERO).toNumber();
  lines[at] = {
    ...lines[at]!,
    cuAllocated: sum((l) => l.cuAllocated),
    cuAllocatedHours: sum((l) => l.cuAllocatedHours),
  };
}

/** The id that breaks ties (to the lower id): the cloud space's or machine's id; a gateway is id 0, as in the platform's files. */
function idOf(line: BillingLine): number {
  if (line.level === "cloudspace") return line.cloudspaceId!;
  if (line.level === "machine") return line.machineId!;
  return 0;
}
