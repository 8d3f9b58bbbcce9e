import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Settings } from "../../../src/config/settings.js";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import type { ApprovalMode } from "../../../src/policy/modes.js";
import { fetchPage } from "../../../src/tools/web/fetch-page.js";
import { createNetworkGuard } from "../../../src/tools/web/network-guard.js";
import type { HostResolver } from "../../../src/tools/web/pinned-request.js";
import { runGantryTool } from "../../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

/** Real servers on 127.0.0.1, 127.0.0.2 and ::1, all on one port, each answering with its own name. */
const servers: Server[] = [];
const hits: string[] = [];
let port = 0;

async function listen(host: string, at: number): Promise<number> {
  const server = createServer((request, response) => {
    hits.push(`${host} ${request.url}`);
    if (request.url === "/hop") {
      response.writeHead(302, { location: "/landing" });
      response.end();
      return;
    }
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(`served by ${host}`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(at, host, resolve);
  });
  servers.push(server);
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  for (let attempt = 0; attempt < 5 && port === 0; attempt++) {
    const candidate = await listen("127.0.0.1", 0);
    try {
      await listen("127.0.0.2", candidate);
      await listen("::1", candidate);
      port = candidate;
    } catch {
      for (const server of servers.splice(0)) server.close();
    }
  }
});
afterAll(() => {
  for (const server of servers) server.close();
});

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = ws = undefined;
  hits.length = 0;
});

async function fetcher(settings: Settings, approvalMode: ApprovalMode = "yolo") {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home, settings, approvalMode });
  const s = session;
  return (url: string) => s.pipeline.run({ name: "read_url_content", args: { Url: url } });
}

/** Spellings of 127.0.0.1 (and of this machine) a server on 127.0.0.1 answers. */
const LOOPBACK_SPELLINGS = [
  "127.0.0.1",
  "localhost",
  "localhost.",
  "LOCALHOST",
  "[::ffff:127.0.0.1]",
  "[::ffff:7f00:1]",
  "2130706433",
  "0x7f000001",
  "0177.0.0.1",
  "127.1",
];
/** Other loopback addresses, each with its own server. */
const OTHER_LOOPBACK = ["127.0.0.2", "[::1]"];

describe("read_url_content refuses this machine and private networks", () => {
  it("refuses every spelling of a loopback address in yolo, before connecting, and says how to allow it", async () => {
    const fetchUrl = await fetcher({});
    for (const host of [...LOOPBACK_SPELLINGS, ...OTHER_LOOPBACK, "0.0.0.0", "[::]", "0"]) {
      const result = await fetchUrl(`http://${host}:${port}/`);
      expect(result.errorCode, host).toBe("denied");
      expect(result.text, host).toMatch(/loopback|unspecified/);
      expect(result.text, host).toContain("web.allowPrivateNetwork");
      expect(result.text, host).toContain("WebFetch(domain:");
    }
    expect(hits).toEqual([]);
  });

  it("refuses private, shared, link-local and cloud metadata addresses without waiting for them", async () => {
    const fetchUrl = await fetcher({});
    const expected: Record<string, string> = {
      "169.254.169.254": "cloud metadata",
      "[fd00:ec2::254]": "cloud metadata",
      "[::ffff:169.254.169.254]": "cloud metadata",
      "10.0.0.1": "private network",
      "172.16.5.4": "private network",
      "192.168.1.1": "private network",
      "100.64.0.1": "carrier-grade NAT",
      "169.254.10.10": "link-local",
      "[fe80::1]": "link-local",
      "[fc00::1]": "unique local",
    };
    for (const [host, label] of Object.entries(expected)) {
      const result = await fetchUrl(`http://${host}/latest/meta-data/`);
      expect(result.errorCode, host).toBe("denied");
      expect(result.text, host).toContain(label);
    }
  });

  it("fetches every spelling once web.allowPrivateNetwork is true", async () => {
    const fetchUrl = await fetcher({ web: { allowPrivateNetwork: true } });
    for (const host of LOOPBACK_SPELLINGS) {
      const result = await fetchUrl(`http://${host}:${port}/`);
      expect(result.error, host).toBe(false);
      // localhost may resolve to ::1 as well as 127.0.0.1, and either may answer
      expect(result.text, host).toMatch(/served by (127\.0\.0\.1|::1)/);
    }
    expect((await fetchUrl(`http://127.0.0.2:${port}/`)).text).toContain("served by 127.0.0.2");
    expect((await fetchUrl(`http://[::1]:${port}/`)).text).toContain("served by ::1");
  });

  it("lets through only the hosts web.allowPrivateNetwork lists, in any of their spellings", async () => {
    const fetchUrl = await fetcher({ web: { allowPrivateNetwork: ["127.0.0.1"] } });
    for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]", "2130706433", "0177.0.0.1", "0x7f.1"]) {
      expect((await fetchUrl(`http://${host}:${port}/`)).text, host).toContain("served by 127.0.0.1");
    }
    for (const host of OTHER_LOOPBACK) {
      expect((await fetchUrl(`http://${host}:${port}/`)).errorCode, host).toBe("denied");
    }
    expect(hits.some((hit) => !hit.startsWith("127.0.0.1 "))).toBe(false);
  });

  it("accepts CIDR ranges in web.allowPrivateNetwork", async () => {
    const fetchUrl = await fetcher({ web: { allowPrivateNetwork: ["127.0.0.0/30"] } });
    expect((await fetchUrl(`http://127.0.0.2:${port}/`)).text).toContain("served by 127.0.0.2");
    expect((await fetchUrl(`http://[::1]:${port}/`)).errorCode).toBe("denied");
  });

  it("accepts IPv6 ranges beside IPv4 ones, each judged by its own family", async () => {
    const fetchUrl = await fetcher({ web: { allowPrivateNetwork: ["::1/128", "127.0.0.2/32"] } });
    expect((await fetchUrl(`http://[::1]:${port}/`)).text).toContain("served by ::1");
    expect((await fetchUrl(`http://127.0.0.2:${port}/`)).text).toContain("served by 127.0.0.2");
    expect((await fetchUrl(`http://127.0.0.1:${port}/`)).errorCode).toBe("denied");
  });

  it("refuses a range whose prefix length is not one, naming the entry and the fix", () => {
    for (const entry of ["10.0.0.0/33", "::1/129", "10.0.0.0/x", "10.0.0.0/", "10.0.0.0/-1"]) {
      expect(() => createNetworkGuard({ allowPrivateNetwork: [entry] }), entry).toThrow(
        new RegExp(
          `web\\.allowPrivateNetwork entry "${entry.replace(/[.]/g, "\\.")}".*whole number from 0 to (32|128)`,
        ),
      );
    }
  });

  it("lets through a host an allow rule names, in default mode, and no other", async () => {
    const fetchUrl = await fetcher(
      { permissions: { allow: ["WebFetch(domain:127.0.0.1)", "WebFetch(domain:127.0.0.2)"] } },
      "default",
    );
    for (const host of ["127.0.0.1", "[::ffff:127.0.0.1]", "2130706433"]) {
      expect((await fetchUrl(`http://${host}:${port}/`)).text, host).toContain("served by 127.0.0.1");
    }
    expect((await fetchUrl(`http://127.0.0.2:${port}/`)).text).toContain("served by 127.0.0.2");
    // ::1 has no rule: the policy asks, and nobody can answer here
    expect((await fetchUrl(`http://[::1]:${port}/`)).errorCode).toBe("denied");
    // a bare WebFetch allow rule names no host: private addresses stay refused
    await session?.dispose();
    await ws?.cleanup();
    const bare = await fetcher({ permissions: { allow: ["WebFetch"] } }, "default");
    const refused = await bare(`http://127.0.0.1:${port}/`);
    expect(refused.errorCode).toBe("denied");
    expect(refused.text).toContain("loopback");
  });
});

describe("web.allowPrivateNetwork loosens the guard", () => {
  it("counts in a workspace's settings only when the workspace is trusted", async () => {
    ws = await createTempWorkspace({
      ".agents/settings.json": JSON.stringify({ web: { allowPrivateNetwork: true } }),
    });
    const fetchOnce = async (extra: string[]) =>
      (
        await runGantryTool(
          "read_url_content",
          { Url: `http://127.0.0.1:${port}/` },
          {
            workspace: ws?.root as string,
            env: { HOME: ws?.home },
            extra: ["--approval-mode", "yolo", ...extra],
          },
        )
      ).result;
    const untrusted = await fetchOnce([]);
    expect(untrusted.errorCode).toBe("denied");
    expect(untrusted.text).toContain("loopback");
    expect((await fetchOnce(["--trust"])).text).toContain("served by 127.0.0.1");
  });
});

describe("deny rules for an address hold for its every spelling", () => {
  it("denies each spelling of 127.0.0.1 and of this machine, also where private addresses are allowed", async () => {
    const fetchUrl = await fetcher({
      web: { allowPrivateNetwork: true },
      permissions: { deny: ["WebFetch(domain:127.0.0.1)", "WebFetch(domain:localhost)"] },
    });
    for (const host of [...LOOPBACK_SPELLINGS, ...OTHER_LOOPBACK]) {
      const result = await fetchUrl(`http://${host}:${port}/`);
      expect(result.errorCode, host).toBe("denied");
      expect(result.text, host).toMatch(/^Denied by rule deny WebFetch\(domain:(127\.0\.0\.1|localhost)\)/);
    }
    expect(hits).toEqual([]);
  });

  it("denies a name that resolves to a denied address", async () => {
    await fetcher({ permissions: { deny: ["WebFetch(domain:127.0.0.1)"] } });
    const guard = createNetworkGuard({ allowPrivateNetwork: true, permissions: session?.permissions });
    const resolve: HostResolver = async () => [{ address: "127.0.0.1", family: 4 }];
    const outcome = await fetchPage(new URL(`http://api.internal.test:${port}/`), LIMITS, NO_ABORT, {
      ...guard,
      resolve,
    });
    expect(outcome).toMatchObject({ kind: "failure", code: "denied" });
    expect(outcome.kind === "failure" && outcome.message).toContain(
      "is reached at 127.0.0.1, which it names",
    );
    expect(hits).toEqual([]);
  });
});

describe("the address judged is the address connected to", () => {
  it("connects to the resolved address it judged, never asking the resolver again", async () => {
    let lookups = 0;
    // a made-up name only this resolver knows: a second lookup by the HTTP client would fail outright
    const resolve: HostResolver = async () => {
      lookups++;
      return [{ address: "127.0.0.1", family: 4 }];
    };
    const guard = createNetworkGuard({ allowPrivateNetwork: ["pinned.invalid"] });
    const outcome = await fetchPage(new URL(`http://pinned.invalid:${port}/page`), LIMITS, NO_ABORT, {
      ...guard,
      resolve,
    });
    expect(outcome).toMatchObject({ kind: "page", status: 200 });
    expect(outcome.kind === "page" && Buffer.from(outcome.body).toString()).toBe("served by 127.0.0.1");
    expect(lookups).toBe(1);
  });

  it("judges every redirect again: a name that rebinds to a metadata address on the next hop is refused there", async () => {
    const answers = ["127.0.0.1", "169.254.169.254"];
    const resolve: HostResolver = async () => [{ address: answers.shift() ?? "127.0.0.1", family: 4 }];
    const guard = createNetworkGuard({ allowPrivateNetwork: ["127.0.0.1"] });
    const outcome = await fetchPage(new URL(`http://rebind.invalid:${port}/hop`), LIMITS, NO_ABORT, {
      ...guard,
      resolve,
    });
    expect(outcome).toMatchObject({ kind: "failure", code: "denied" });
    expect(outcome.kind === "failure" && outcome.message).toContain(
      '"rebind.invalid" resolves to 169.254.169.254, a cloud metadata endpoint',
    );
    expect(hits).toEqual(["127.0.0.1 /hop"]);
  });
});

const LIMITS = { timeoutMs: 10_000, maxBytes: 1024 * 1024 };
const NO_ABORT = new AbortController().signal;
