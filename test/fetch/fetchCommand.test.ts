import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli as cli, type CliRun as Run } from "../helpers/runCli.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { UsageError, generateHours, openWarehouse, writeDataset } from "../../src/internal.js";
import { authFromArgs } from "../../src/cli/commands/fetch.js";
import { fakePlatform } from "./fakePlatform.js";
import {
  CONSUMPTION_PATH,
  SECRETS,
  SECRET_VALUES,
  platform,
  sendBytes,
  startServer,
  type FakeServer,
} from "./fakeService.js";
import { calculateFrom } from "../helpers/billFrom.js";

const START = 1790812800; // 2026-10-01T00:00Z
const HOURS = 2;

function expectNoSecret(run: Run): void {
  for (const secret of SECRET_VALUES) {
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  }
}

let dir: string;
const zips = new Map<string, Buffer>();
let server: FakeServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "cloudunits-fetch-cli-"));
  for (const accountId of [7, 8]) {
    const file = join(dir, `source-${accountId}.zip`);
    await writeDataset({
      out: file,
      accounts: 1,
      firstAccountId: accountId,
      spaces: 1,
      machines: 2,
      hours: HOURS,
      start: START,
    });
    zips.set(String(accountId), await readFile(file));
  }
});

afterEach(async () => {
  await server?.close();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const period = ["--start", "2026-10-01T00:00Z", "--end", String(START + HOURS * 3600)];

describe("cloudunits fetch", () => {
  it("downloads one file per account into a directory with a JWT, secrets from the environment (exit 0)", async () => {
    server = await startServer(
      platform((request, response) =>
        sendBytes(response, zips.get(request.query.get("accountId") ?? "") ?? Buffer.alloc(0)),
      ),
    );
    const out = join(dir, "jwt") + "/";
    const run = await cli(
      [
        "fetch",
        "--url",
        server.url,
        "--auth-url",
        `${server.url}/idp`,
        "--account-id",
        "7",
        "--account-id",
        "8",
        ...period,
        "--out",
        out,
      ],
      { CLOUDUNITS_CLIENT_ID: SECRETS.clientId, CLOUDUNITS_CLIENT_SECRET: SECRETS.clientSecret },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expectNoSecret(run);
    const names = [
      "consumption-7-20261001T000000Z-20261001T020000Z.zip",
      "consumption-8-20261001T000000Z-20261001T020000Z.zip",
    ];
    expect((await readdir(out)).sort()).toEqual(names);
    expect(run.stdout).toContain(`${join(out, names[0]!)}\t${zips.get("7")!.length} bytes\t${HOURS} account-hours`);
    expect((await readFile(join(out, names[1]!))).equals(zips.get("8")!)).toBe(true);
  });

  it("logs in with a session key from flags and never prints it (exit 0)", async () => {
    server = await startServer(platform((_request, response) => sendBytes(response, zips.get("7")!)));
    const out = join(dir, "session.zip");
    const run = await cli([
      "fetch",
      "--url",
      server.url,
      "--username",
      SECRETS.username,
      "--password",
      SECRETS.password,
      "--account-id",
      "7",
      ...period,
      "--out",
      out,
    ]);
    expect(run.code).toBe(0);
    expectNoSecret(run);
    expect(server.seenAt(CONSUMPTION_PATH)[0]?.query.get("authkey")).toBe(SECRETS.sessionKey);
    expect((await readFile(out)).equals(zips.get("7")!)).toBe(true);
  });

  it("both authentication methods at once is a usage error (exit 2)", async () => {
    const run = await cli([
      "fetch",
      "--url",
      "http://127.0.0.1:9",
      "--account-id",
      "7",
      ...period,
      "--out",
      join(dir, "never.zip"),
      "--username",
      SECRETS.username,
      "--password",
      SECRETS.password,
      "--client-id",
      SECRETS.clientId,
      "--client-secret",
      SECRETS.clientSecret,
      "--auth-url",
      "http://127.0.0.1:9",
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^cloudunits: give one authentication method/);
    expectNoSecret(run);
  });

  it.each([
    {
      what: "a missing password",
      flags: { username: SECRETS.username },
      env: {},
      message: /^missing --password: pass it or set CLOUDUNITS_PASSWORD$/,
    },
    {
      what: "a missing client secret",
      flags: { authUrl: "http://idp", clientId: SECRETS.clientId },
      env: {},
      message: /^missing --client-secret: pass it or set CLOUDUNITS_CLIENT_SECRET$/,
    },
    { what: "no authentication", flags: {}, env: {}, message: /^no authentication given/ },
    {
      what: "JWT without --auth-url",
      flags: {},
      env: { CLOUDUNITS_CLIENT_ID: SECRETS.clientId, CLOUDUNITS_CLIENT_SECRET: SECRETS.clientSecret },
      message: /^missing --auth-url/,
    },
  ])("$what is a usage error", ({ flags, env, message }) => {
    let error: unknown;
    try {
      authFromArgs(flags, env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
    for (const secret of SECRET_VALUES) expect((error as Error).message).not.toContain(secret);
  });

  it.each([
    {
      what: "session flags, secrets from flags",
      flags: { username: SECRETS.username, password: SECRETS.password },
      env: {},
      auth: { kind: "session", username: SECRETS.username, password: SECRETS.password },
    },
    {
      what: "session key from the environment alone",
      flags: {},
      env: {
        CLOUDUNITS_USERNAME: SECRETS.username,
        CLOUDUNITS_PASSWORD: SECRETS.password,
        CLOUDUNITS_CLIENT_ID: SECRETS.clientId,
      },
      auth: { kind: "session", username: SECRETS.username, password: SECRETS.password },
    },
    {
      what: "--auth-url picks JWT even when session variables are set",
      flags: { authUrl: "http://idp", validity: 60 },
      env: {
        CLOUDUNITS_USERNAME: SECRETS.username,
        CLOUDUNITS_CLIENT_ID: SECRETS.clientId,
        CLOUDUNITS_CLIENT_SECRET: SECRETS.clientSecret,
      },
      auth: {
        kind: "jwt",
        authUrl: "http://idp",
        clientId: SECRETS.clientId,
        clientSecret: SECRETS.clientSecret,
        validity: 60,
      },
    },
    {
      what: "a flag wins over its variable",
      flags: { username: "flag-user", password: SECRETS.password },
      env: { CLOUDUNITS_USERNAME: SECRETS.username },
      auth: { kind: "session", username: "flag-user", password: SECRETS.password },
    },
  ])("chooses the authentication method: $what", ({ flags, env, auth }) => {
    expect(authFromArgs(flags, env)).toEqual(auth);
  });

  it("a refused login exits 4 with a message that holds no secret", async () => {
    server = await startServer(platform((_request, response) => sendBytes(response, zips.get("7")!)));
    const run = await cli(
      ["fetch", "--url", server.url, "--account-id", "7", ...period, "--out", join(dir, "refused.zip")],
      {
        CLOUDUNITS_USERNAME: SECRETS.username,
        CLOUDUNITS_PASSWORD: `${SECRETS.password}-wrong`,
      },
    );
    expect(run.code).toBe(4);
    expect(run.stderr).toMatch(/^cloudunits: the login \(users\/authenticate\) was refused \(HTTP 401/);
    expectNoSecret(run);
    expect(run.stderr).not.toContain(`${SECRETS.password}-wrong`);
  });

  it("an account accounts/list does not name is exit 2 naming the known ones, and leaves no file; a known account without hours is an empty archive and a warning", async () => {
    server = await startServer(
      fakePlatform({
        hours: [
          ...generateHours({ accounts: 2, firstAccountId: 7, spaces: 1, machines: 1, hours: HOURS, start: START }),
        ],
      }),
    );
    const env = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };
    const unknown = await cli(
      ["fetch", "--url", server.url, "--account-id", "77", ...period, "--out", join(dir, "unknown.zip")],
      env,
    );
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /unknown account 77 \(not in http:\/\/127\.0\.0\.1:\d+'s accounts\/list\); known: 7, 8/,
    );
    expect(await readdir(dir)).not.toContain("unknown.zip");
    const later = await cli(
      [
        "fetch",
        "--url",
        server.url,
        "--account-id",
        "8",
        "--start",
        "2026-11-01",
        "--end",
        "2026-11-02",
        "--out",
        join(dir, "empty.zip"),
      ],
      env,
    );
    expect(later.code).toBe(0);
    expect(later.stdout).toMatch(/empty\.zip\t\d+ bytes\t0 account-hours/);
    expect(later.stderr).toContain("warning: account 8 has no consumption files in the period");
    expectNoSecret(unknown);
  });

  it("without an accounts/list to ask (404), an empty archive stays an empty archive and a warning (exit 0)", async () => {
    server = await startServer(
      platform((_request, response) =>
        sendBytes(response, zips.get("none") ?? Buffer.from("504b0506000000000000000000000000000000000000", "hex")),
      ),
    );
    const run = await cli(
      ["fetch", "--url", server.url, "--account-id", "77", ...period, "--out", join(dir, "unlisted.zip")],
      {
        CLOUDUNITS_USERNAME: SECRETS.username,
        CLOUDUNITS_PASSWORD: SECRETS.password,
      },
    );
    expect([run.code, run.stderr]).toEqual([
      0,
      "cloudunits: warning: account 77 has no consumption files in the period\n",
    ]);
  });

  it("an archive of another account exits 3", async () => {
    server = await startServer(platform((_request, response) => sendBytes(response, zips.get("8")!)));
    const run = await cli(
      ["fetch", "--url", server.url, "--account-id", "7", ...period, "--out", join(dir, "other.zip")],
      {
        CLOUDUNITS_USERNAME: SECRETS.username,
        CLOUDUNITS_PASSWORD: SECRETS.password,
      },
    );
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/not the requested account 7/);
  });

  it("the downloaded archive goes straight into billing and bills exactly what the platform's files hold", async () => {
    server = await startServer(platform((_request, response) => sendBytes(response, zips.get("7")!)));
    const out = join(dir, "for-billing.zip");
    const env = { CLOUDUNITS_USERNAME: SECRETS.username, CLOUDUNITS_PASSWORD: SECRETS.password };
    const fetched = await cli(["fetch", "--url", server.url, "--account-id", "7", ...period, "--out", out], env);
    expect(fetched.code).toBe(0);
    const billed = await cli(["billing", out, ...period, "--account-id", "7", "--format", "json"]);
    expect(billed.stderr).toBe("");
    expect(billed.code).toBe(0);

    // the same data set as the platform's {billing_dir} tree, billed through the library
    const tree = join(dir, "billing-dir");
    await writeDataset({
      out: tree,
      layout: "tree",
      accounts: 1,
      firstAccountId: 7,
      spaces: 1,
      machines: 2,
      hours: HOURS,
      start: START,
    });
    const warehouse = await openWarehouse([tree]);
    try {
      const expected = await calculateFrom(warehouse.connection, {
        start: START,
        end: START + HOURS * 3600,
        accountId: 7,
      });
      expect(JSON.parse(billed.stdout)).toEqual(expected);
      expect(expected).toMatchObject({ account: { id: 7 } });
      expect((expected as { account: { consumption: { CU: number } } }).account.consumption.CU).toBeGreaterThan(0);
    } finally {
      warehouse.close();
    }
  });
});
