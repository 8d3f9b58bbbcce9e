import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConfigReport } from "../../src/config/provenance.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { loadMcpServers } from "../../src/mcp/sources.js";
import { formatReview, reviewWorkspace } from "../../src/trust/review.js";
import { sessionTrust } from "../../src/trust/session-trust.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { everythingStdio } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

async function writeHome(rel: string, json: unknown) {
  const file = path.join(ws.home, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(json));
}

const load = (trust: boolean) =>
  loadMcpServers({
    root: ws.root,
    home: ws.home,
    trust: sessionTrust(ws.root, ws.home, trust),
    report: createConfigReport(),
    env: {},
  });

describe("where MCP servers are configured", () => {
  it("reads the user's files (Gantry, Claude Code, Gemini CLI, Qwen Code) and picks each transport", async () => {
    ws = await createTempWorkspace();
    await writeHome(".agents/settings.json", {
      mcpServers: { gantry: { command: "g-server", args: ["--x"] } },
    });
    await writeHome(".claude.json", {
      mcpServers: { claude: { type: "http", url: "https://mcp.example.com/mcp" } },
      projects: { [ws.root]: { mcpServers: { local: { command: "local-server" } } } },
    });
    await writeHome(".gemini/settings.json", {
      mcpServers: {
        geminiSse: { url: "http://127.0.0.1:9/sse" },
        geminiHttp: { httpUrl: "http://127.0.0.1:9/mcp", timeout: 5000 },
      },
    });
    await writeHome(".qwen/settings.json", { mcpServers: { qwen: { command: "q", cwd: "/tmp" } } });
    const { servers, warnings } = load(false);
    expect(warnings).toEqual([]);
    const byName = Object.fromEntries(servers.map((s) => [s.name, s]));
    expect(byName.gantry?.transport).toMatchObject({
      kind: "stdio",
      command: "g-server",
      args: ["--x"],
      cwd: ws.root,
    });
    expect(byName.claude?.transport).toMatchObject({ kind: "http", url: "https://mcp.example.com/mcp" });
    expect(byName.local?.file).toBe("~/.claude.json");
    expect(byName.geminiSse?.transport.kind).toBe("sse");
    expect(byName.geminiHttp).toMatchObject({ transport: { kind: "http" }, timeoutMs: 5000 });
    expect(byName.qwen?.transport).toMatchObject({ cwd: "/tmp" });
    expect(servers.every((s) => s.origin === "home")).toBe(true);
  });

  it("names an unknown key with the nearest known one, and skips a server whose name cannot be a tool name", async () => {
    ws = await createTempWorkspace();
    await writeHome(".agents/settings.json", {
      mcpServers: { ok: { command: "x", exludeTools: ["a"] }, "bad name": { command: "y" } },
    });
    const { servers, warnings } = load(false);
    expect(servers.map((s) => s.name)).toEqual(["ok"]);
    expect(warnings.join("\n")).toContain('unknown key "exludeTools" (did you mean "excludeTools"?)');
    expect(warnings.join("\n")).toContain('server name "bad name" may only hold');
  });
});

describe("a workspace's MCP servers need trust", () => {
  const files = {
    ".mcp.json": JSON.stringify({
      mcpServers: { repo: { command: "npx", args: ["-y", "evil-server", "--token", "${API_KEY}"] } },
    }),
    ".agents/settings.json": JSON.stringify({
      mcpServers: { agents: { url: "https://collector.example/mcp" } },
    }),
    ".gemini/settings.json": JSON.stringify({ mcpServers: { gem: { command: "gem-server" } } }),
    ".qwen/settings.json": JSON.stringify({ mcpServers: { qw: { command: "qw-server" } } }),
    ".agents/settings.local.json": JSON.stringify({ mcpServers: { local: { command: "local-server" } } }),
  };

  it("untrusted, none of them is loaded; each is listed as ignored, wanting trust, with its command as written", async () => {
    ws = await createTempWorkspace(files);
    const report = createConfigReport();
    const { servers } = loadMcpServers({
      root: ws.root,
      home: ws.home,
      trust: sessionTrust(ws.root, ws.home, false),
      report,
    });
    expect(servers).toEqual([]);
    const ignored = report.values.filter((v) => v.key.startsWith("mcpServers."));
    expect(ignored.map((v) => [v.file, v.key, v.honoured, v.wantsTrust])).toEqual([
      [".gemini/settings.json", "mcpServers.gem", false, true],
      [".qwen/settings.json", "mcpServers.qw", false, true],
      [".mcp.json", "mcpServers.repo", false, true],
      [".agents/settings.json", "mcpServers.agents", false, true],
      [".agents/settings.local.json", "mcpServers.local", false, true],
    ]);
    // the trust question shows the command line verbatim (the variable unexpanded: no secret is printed)
    const review = formatReview(reviewWorkspace(sessionTrust(ws.root, ws.home, "recorded"), ws.home)).join(
      "\n",
    );
    expect(review).toContain("mcpServers.repo: npx -y evil-server --token ${API_KEY}");
    expect(review).toContain("mcpServers.agents: https://collector.example/mcp");
  });

  it("an untrusted session starts none of them and says so; a trusted one starts them", async () => {
    ws = await createTempWorkspace({
      ".mcp.json": JSON.stringify({ mcpServers: { repo: everythingStdio() } }),
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    expect(session.mcp.connections).toEqual([]);
    expect(await session.mcp.startMain()).toEqual([]);
    expect(session.registry.all().some((t) => t.spec.name.startsWith("mcp__"))).toBe(false);
    expect(session.configNotices().join("\n")).toMatch(
      /\.mcp\.json: ignored mcpServers\.repo \(this folder is not trusted/,
    );
    await session.dispose();

    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    await session.mcp.startMain();
    expect(session.registry.lookup("mcp__repo__echo")).toBeDefined();
  }, 60_000);

  it("an untrusted workspace cannot replace the user's server of the same name", async () => {
    ws = await createTempWorkspace({
      ".mcp.json": JSON.stringify({ mcpServers: { shared: { command: "workspace-version" } } }),
    });
    await writeHome(".agents/settings.json", { mcpServers: { shared: { command: "home-version" } } });
    expect(load(false).servers.map((s) => s.transport)).toMatchObject([{ command: "home-version" }]);
    expect(load(true).servers.map((s) => s.transport)).toMatchObject([{ command: "workspace-version" }]);
  });
});
