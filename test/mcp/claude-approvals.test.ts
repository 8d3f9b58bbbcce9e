import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConfigReport } from "../../src/config/provenance.js";
import { loadMcpServers } from "../../src/mcp/sources.js";
import { reviewWorkspace } from "../../src/trust/review.js";
import { sessionTrust } from "../../src/trust/session-trust.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Claude Code keeps the user's answers about a project's .mcp.json servers in disabledMcpjsonServers
// (.claude/settings.local.json, ~/.claude.json's project entry, any settings file): a server the user
// turned down there must not start under Gantry either, trusted folder or not. The approvals that widen
// (enabledMcpjsonServers, enableAllProjectMcpServers) are the folder's trust in Gantry: named, not honoured.

let ws: TempWorkspace;
afterEach(async () => {
  await ws?.cleanup();
});

async function writeAt(base: string, rel: string, json: unknown) {
  const file = path.join(base, rel);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(json));
}

const mcpJson = { mcpServers: { kept: { command: "kept-server" }, refused: { command: "refused-server" } } };

function load(trust: boolean) {
  const report = createConfigReport();
  const { servers, warnings } = loadMcpServers({
    root: ws.root,
    home: ws.home,
    trust: sessionTrust(ws.root, ws.home, trust),
    report,
    env: {},
  });
  return { names: servers.map((s) => s.name), report, warnings };
}

describe("disabledMcpjsonServers", () => {
  for (const [where, write] of [
    [
      ".claude/settings.local.json",
      () => writeAt(ws.root, ".claude/settings.local.json", { disabledMcpjsonServers: ["refused"] }),
    ],
    [
      ".claude/settings.json",
      () => writeAt(ws.root, ".claude/settings.json", { disabledMcpjsonServers: ["refused"] }),
    ],
    [
      "~/.claude/settings.json",
      () => writeAt(ws.home, ".claude/settings.json", { disabledMcpjsonServers: ["refused"] }),
    ],
    [
      "~/.claude.json",
      () =>
        writeAt(ws.home, ".claude.json", {
          projects: { [ws.root]: { disabledMcpjsonServers: ["refused"] } },
        }),
    ],
  ] as const) {
    it(`in ${where}: that .mcp.json server never starts, even in a trusted folder, and says why`, async () => {
      ws = await createTempWorkspace({ ".mcp.json": JSON.stringify(mcpJson) });
      await write();
      const trusted = load(true);
      expect(trusted.names).toEqual(["kept"]);
      const value = trusted.report.values.find((v) => v.key === "mcpServers.refused");
      expect(value).toMatchObject({ honoured: false, file: ".mcp.json" });
      expect(value?.why).toContain(`disabledMcpjsonServers in ${where}`);
      expect(value?.wantsTrust).toBeUndefined();
      // trusting the folder would not start it: the trust question does not offer it
      const review = reviewWorkspace(sessionTrust(ws.root, ws.home, false), ws.home);
      expect(review.map((v) => v.key)).toContain("mcpServers.kept");
      expect(review.map((v) => v.key)).not.toContain("mcpServers.refused");
    });
  }

  it("only concerns .mcp.json: a server of the same name elsewhere is not switched off by it", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.local.json": JSON.stringify({ disabledMcpjsonServers: ["mine"] }),
    });
    await writeAt(ws.home, ".agents/settings.json", { mcpServers: { mine: { command: "my-server" } } });
    expect(load(false).names).toEqual(["mine"]);
  });

  it("a value that is not a list of names is named, and switches nothing off", async () => {
    ws = await createTempWorkspace({
      ".mcp.json": JSON.stringify(mcpJson),
      ".claude/settings.local.json": JSON.stringify({ disabledMcpjsonServers: "refused" }),
    });
    const loaded = load(true);
    expect(loaded.names).toEqual(["kept", "refused"]);
    expect(loaded.warnings.join("\n")).toContain(
      '.claude/settings.local.json: "disabledMcpjsonServers" must be a list of server names; ignored',
    );
  });
});

describe("Claude Code's approvals that widen", () => {
  it("enableAllProjectMcpServers and enabledMcpjsonServers in the workspace start nothing untrusted, and are named", async () => {
    ws = await createTempWorkspace({
      ".mcp.json": JSON.stringify(mcpJson),
      ".claude/settings.json": JSON.stringify({
        enableAllProjectMcpServers: true,
        enabledMcpjsonServers: ["kept"],
      }),
    });
    const loaded = load(false);
    expect(loaded.names).toEqual([]);
    const said = loaded.warnings.join("\n");
    expect(said).toContain(".claude/settings.json: enableAllProjectMcpServers is not honoured");
    expect(said).toContain(".claude/settings.json: enabledMcpjsonServers is not honoured");
  });
});

it("a trusted folder's approvals are not warned about: its servers start by its trust", async () => {
  ws = await createTempWorkspace({
    ".mcp.json": JSON.stringify(mcpJson),
    ".claude/settings.local.json": JSON.stringify({ enabledMcpjsonServers: ["kept", "refused"] }),
  });
  const loaded = load(true);
  expect(loaded.names).toEqual(["kept", "refused"]);
  expect(loaded.warnings).toEqual([]);
});
