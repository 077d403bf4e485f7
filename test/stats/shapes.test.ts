import type { DuckDBConnection } from "@duckdb/node-api";
import { beforeAll, describe, expect, it } from "vitest";
import {
  accountStats,
  cloudspaceStats,
  machineStats,
  UsageError,
  type SeriesTree,
  type StatsResponse,
} from "../../src/internal.js";
import { fixtureConnection, T0, T5 } from "./statsFixture.js";

let connection: DuckDBConnection;
beforeAll(async () => {
  connection = await fixtureConnection();
});

/** The shapes of the seed's tables 2.2–2.4: an array, keys from the data, or fixed keys. */
type Shape = "array" | { perKey: Shape } | { [key: string]: Shape };
const perKey = (shape: Shape): Shape => ({ perKey: shape });
const inOut: Shape = { in: "array", out: "array" };

const seedTables: {
  entity: string;
  stats: (include: string[]) => Promise<StatsResponse>;
  shapes: Record<string, Shape>;
}[] = [
  {
    entity: "machine (seed 2.2)",
    stats: (include) => machineStats(connection, { machineId: 101, accountId: 7, from: T0, till: T5, include }),
    shapes: {
      "vdisk-iops": perKey("array"),
      "vm-iops": "array",
      "vdisk-capacity": perKey("array"),
      "vm-capacity": "array",
      cpu: "array",
      memory: "array",
      network: perKey(inOut),
    },
  },
  {
    entity: "cloud space (seed 2.3)",
    stats: (include) => cloudspaceStats(connection, { cloudspaceId: 70, accountId: 7, from: T0, till: T5, include }),
    shapes: {
      "vdisk-iops": "array",
      capacity: "array",
      cpu: { allocated: "array", inuse: "array" },
      memory: "array",
      network: { vms: inOut, gateways: inOut },
    },
  },
  {
    entity: "account (seed 2.4)",
    stats: (include) => accountStats(connection, { accountId: 7, from: T0, till: T5, include }),
    shapes: {
      capacity: "array",
      "storage-capacity": "array",
      "vdisk-iops": "array",
      cpu: { allocated: "array", inuse: "array" },
      memory: "array",
      network: inOut,
    },
  },
];

function expectShape(tree: SeriesTree, shape: Shape, hours: number, where: string): void {
  if (shape === "array") {
    expect(Array.isArray(tree), `${where} is an array`).toBe(true);
    expect(tree, `${where} is aligned with time`).toHaveLength(hours);
    return;
  }
  expect(Array.isArray(tree), `${where} is an object`).toBe(false);
  const object = tree as Record<string, SeriesTree>;
  if ("perKey" in shape) {
    expect(Object.keys(object).length, `${where} has keys`).toBeGreaterThan(0);
    for (const key of Object.keys(object)) {
      expect(key, `${where} keys are ids or positions`).toMatch(/^\d+$/);
      expectShape(object[key]!, shape.perKey as Shape, hours, `${where}.${key}`);
    }
    return;
  }
  expect(Object.keys(object), `${where} keys`).toEqual(Object.keys(shape));
  for (const [key, child] of Object.entries(shape)) expectShape(object[key]!, child, hours, `${where}.${key}`);
}

describe.each(seedTables)("the $entity series", ({ stats, shapes }) => {
  it("have the shapes of the seed's table, each array aligned with time", async () => {
    const names = Object.keys(shapes);
    const r = await stats(names);
    expect(Object.keys(r)).toEqual(["time", "series"]);
    expect(Object.keys(r.series)).toEqual(names);
    expect(r.time.length).toBeGreaterThan(0);
    for (const name of names) expectShape(r.series[name]!, shapes[name]!, r.time.length, name);
  });

  it.each(["vdisk-latency", "vdisk-bandwidth"])("refuse %s, saying the files do not hold it", async (name) => {
    const ask = stats(["memory", name]);
    await expect(ask).rejects.toThrow(UsageError);
    await expect(ask).rejects.toThrow(
      new RegExp(`${name} cannot be computed: the consumption files record no disk latency or bandwidth`),
    );
  });

  it("refuse an unknown name, naming it and the allowed ones", async () => {
    await expect(stats(["memory", "cpu-load"])).rejects.toThrow(/unknown .* series "cpu-load" \(.* series: .*memory/);
  });
});

describe("series names of one entity", () => {
  it("are not accepted for another: a machine has no capacity, an account no vm-iops", async () => {
    await expect(
      machineStats(connection, { machineId: 101, accountId: 7, from: T0, till: T5, include: "capacity" }),
    ).rejects.toThrow(/unknown machine series "capacity"/);
    await expect(accountStats(connection, { accountId: 7, from: T0, till: T5, include: "vm-iops" })).rejects.toThrow(
      /unknown account series "vm-iops"/,
    );
  });

  it("must name at least one series", async () => {
    await expect(accountStats(connection, { accountId: 7, from: T0, till: T5, include: [] })).rejects.toThrow(
      /no series requested/,
    );
  });

  it("come with a period whose till is after its from", async () => {
    await expect(accountStats(connection, { accountId: 7, from: T5, till: T0, include: "memory" })).rejects.toThrow(
      /till .* must be after from/,
    );
  });
});
