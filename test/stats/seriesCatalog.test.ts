import { describe, expect, it } from "vitest";
import { statsTables } from "../../src/stats/seriesCatalog.js";

describe("statsTables", () => {
  it.each([
    ["machine", ["cpu"], ["machines"]],
    ["machine", ["memory", "network"], ["machines", "nics"]],
    ["machine", ["vdisk-iops"], ["machines", "disks"]],
    ["cloudspace", ["capacity"], ["cloudspaces", "machines", "disks"]],
    ["cloudspace", ["network"], ["cloudspaces", "nics"]],
    ["account", ["storage-capacity", "cpu"], ["account_hours", "machines", "disks"]],
    ["account", ["network"], ["account_hours", "nics"]],
  ] as const)("loads for %s %j only the tables %j", (entity, include, tables) => {
    expect(statsTables(entity, include)).toEqual(tables);
  });
});
