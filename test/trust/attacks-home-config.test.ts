import { chmodSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../mcp/support.js";
import { runGantry, runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { ran, writeHomeFile } from "./support.js";

// The user's own hooks and MCP servers run in every folder; in a folder not trusted, one whose command
// would run the repository's code (a script it names through $PWD, `npx` of the repository's
// node_modules, `python3 -m` of a folder in it) must not run it.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const listDir = { DirectoryPath: "." };
const env = () => ({ HOME: (ws as TempWorkspace).home, GANTRY_TRUST_WORKSPACE: "" });

/** A workspace whose every piece of code touches `marker` when run. */
async function hostileWorkspace(): Promise<{ marker: string }> {
  ws = await createTempWorkspace({});
  const marker = path.join(ws.parent, "PWNED-workspace-code");
  const touch = `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");`;
  await ws.write(".agents/gate.sh", `touch ${marker}\necho '{}'\n`);
  await ws.write("node_modules/prettier/package.json", JSON.stringify({ name: "prettier", bin: "bin.js" }));
  await ws.write("node_modules/prettier/bin.js", `#!/usr/bin/env node\n${touch}\n`);
  await ws.write(
    "node_modules/@modelcontextprotocol/server-filesystem/package.json",
    JSON.stringify({ name: "@modelcontextprotocol/server-filesystem", bin: "bin.js" }),
  );
  await ws.write(
    "node_modules/@modelcontextprotocol/server-filesystem/bin.js",
    `#!/usr/bin/env node\n${touch}\n`,
  );
  await ws.write("node_modules/.bin/prettier", `#!/usr/bin/env node\n${touch}\n`);
  await ws.write("node_modules/.bin/mcp-server-filesystem", `#!/usr/bin/env node\n${touch}\n`);
  chmodSync(path.join(ws.root, "node_modules/.bin/prettier"), 0o755);
  chmodSync(path.join(ws.root, "node_modules/.bin/mcp-server-filesystem"), 0o755);
  await ws.write("evilpy/__main__.py", `open(${JSON.stringify(marker)}, "w")\n`);
  await ws.write("tools/server.js", `${touch}\n`);
  return { marker };
}

describe("the user's own hooks in a folder not trusted", () => {
  for (const command of [
    'sh "$PWD/.agents/gate.sh"',
    'sh "${CLAUDE_PROJECT_DIR:-.}/.agents/gate.sh"',
    "npx --no-install prettier --version",
  ]) {
    it(`${command}: the repository's code does not run, the call is denied naming the file`, async () => {
      const { marker } = await hostileWorkspace();
      await writeHomeFile(ws as TempWorkspace, ".agents/hooks.json", {
        mine: { pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command }] }] },
      });
      const { result } = await runGantryTool("list_dir", listDir, {
        workspace: (ws as TempWorkspace).root,
        env: env(),
      });
      expect(ran(marker)).toBe(false);
      expect(result.errorCode).toBe("denied");
      expect(result.text).toMatch(
        /it runs (\.agents\/gate\.sh|node_modules\/\S+), a file of this workspace: this folder is not trusted/,
      );
      expect(result.text).toContain(
        "or change the hook in ~/.agents/hooks.json so it runs no file of the workspace",
      );
    }, 30_000);
  }
});

describe("the user's own MCP servers in a folder not trusted", () => {
  it("a server that would run the repository's code is not started, and gantry mcp list says which file; the others start", async () => {
    const { marker } = await hostileWorkspace();
    await writeHomeFile(ws as TempWorkspace, ".agents/settings.json", {
      mcpServers: {
        fs: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
        py: { command: "python3", args: ["-m", "evilpy"] },
        tools: { command: "node", args: ["tools/server.js"] },
        everything: everythingStdio(),
      },
    });
    const list = await runGantry(["--workspace", (ws as TempWorkspace).root, "mcp", "list"], {
      env: env(),
      timeoutMs: 60_000,
    });
    expect(ran(marker)).toBe(false);
    const out = list.stdout + list.stderr;
    expect(out).toContain("node_modules/@modelcontextprotocol/server-filesystem");
    expect(out).toContain("it runs evilpy/__main__.py, a file of this workspace: this folder is not trusted");
    expect(out).toContain("it runs tools/server.js, a file of this workspace");
    expect(out).toContain("change the server in ~/.agents/settings.json so it runs no file of the workspace");
    expect(list.stdout).toMatch(/everything {2}✓ connected/);
  }, 90_000);
});

/** A trusted workspace whose hook or server runs `script`; the script is then swapped for one touching `marker`. */
async function trustThenSwap(files: Record<string, string>, script: string): Promise<string> {
  ws = await createTempWorkspace(files);
  expect((await runGantry(["trust", ws.root], { env: env() })).code).toBe(0);
  const marker = path.join(ws.parent, "SWAPPED-ran");
  await writeFile(
    path.join(ws.root, script),
    script.endsWith(".sh")
      ? `touch ${marker}\necho '{}'\n`
      : `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "");\n`,
  );
  return marker;
}

describe("a trusted folder's scripts stay pinned however the command names them", () => {
  for (const command of [
    'sh "$PWD/.agents/hooks-scripts/gate.sh"',
    "echo '>' ; sh .agents/hooks-scripts/gate.sh ''",
    'bash -c "sh .agents/hooks-scripts/{gate,x}.sh"',
  ]) {
    it(`hook ${command}: a swapped script does not run`, async () => {
      const marker = await trustThenSwap(
        {
          ".agents/hooks-scripts/gate.sh": "cat >/dev/null; echo '{}'\n",
          ".agents/hooks.json": JSON.stringify({
            gate: { pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command }] }] },
          }),
        },
        ".agents/hooks-scripts/gate.sh",
      );
      const { result } = await runGantryTool("list_dir", listDir, {
        workspace: (ws as TempWorkspace).root,
        env: env(),
      });
      expect(ran(marker)).toBe(false);
      expect(result.errorCode).toBe("denied");
      expect(result.text).toContain(".agents/hooks-scripts/gate.sh changed since you trusted this folder");
    }, 30_000);
  }

  for (const [name, server, script] of [
    ["${PWD}", { command: "node", args: ["${PWD}/tools/server.cjs"] }, "tools/server.cjs"],
    ["cwd", { command: "node", args: ["server.cjs"], cwd: "tools" }, "tools/server.cjs"],
    [
      "NODE_OPTIONS",
      { command: "node", args: ["-e", "0"], env: { NODE_OPTIONS: "--require ./tools/pre.cjs" } },
      "tools/pre.cjs",
    ],
  ] as const) {
    it(`MCP server through ${name}: a swapped script does not start`, async () => {
      const marker = await trustThenSwap(
        {
          "tools/server.cjs": "process.exit(0)\n",
          "tools/pre.cjs": "\n",
          ".mcp.json": JSON.stringify({ mcpServers: { s: server } }),
        },
        script,
      );
      const list = await runGantry(["--workspace", (ws as TempWorkspace).root, "mcp", "list"], {
        env: { ...env(), PWD: (ws as TempWorkspace).root },
        timeoutMs: 60_000,
      });
      expect(ran(marker)).toBe(false);
      expect(list.stdout + list.stderr).toContain(
        `its script ${script} changed since you trusted this folder`,
      );
    }, 60_000);
  }
});
