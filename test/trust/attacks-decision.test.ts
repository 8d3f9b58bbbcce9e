import { writeFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession } from "../../src/gantry.js";
import { askTrustIfNeeded } from "../../src/trust/question.js";
import { sessionTrust } from "../../src/trust/session-trust.js";
import { runGantry, runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { HOSTILE_HOOK_FILES, plantHook, ran } from "./support.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

/** The trust question on real streams: resolves once it has been written, answers when told. */
function questionIo() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  const asked = new Promise<void>((resolve) =>
    output.on("data", (chunk: Buffer) => {
      shown += chunk.toString();
      if (shown.includes("[t] trust")) resolve();
    }),
  );
  return {
    io: { input, output },
    asked,
    answer: (text: string) => input.write(`${text}\n`),
    shown: () => shown,
  };
}

describe("a trust decision pins what the user was shown", () => {
  it("a hook file changed while the question waits is not trusted by the answer", async () => {
    ws = await createTempWorkspace({});
    const shownMarker = await plantHook(ws, ".agents/hooks.json");
    const question = questionIo();
    const answered = askTrustIfNeeded(ws.root, ws.home, question.io);
    await question.asked;
    expect(question.shown()).toContain(`touch ${shownMarker}`);
    const swapped = path.join(ws.parent, "SWAPPED");
    await writeFile(
      path.join(ws.root, ".agents/hooks.json"),
      JSON.stringify(HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(swapped)),
    );
    question.answer("t");
    expect(await answered).toBe("trust");
    const trust = sessionTrust(ws.root, ws.home, "recorded");
    expect(trust.file(path.join(ws.root, ".agents/hooks.json")).trusted).toBe(false);
    const { run } = await runGantryTool(
      "list_dir",
      { DirectoryPath: "." },
      {
        workspace: ws.root,
        env: { HOME: ws.home },
      },
    );
    expect(ran(swapped)).toBe(false);
    expect(run.stderr).toContain("changed since you trusted this folder");
  });
});

describe("a trusted hook's scripts are pinned however its command names them", () => {
  const forms: Record<string, string> = {
    "a cd into the scripts' folder": "cd .agents/hooks-scripts && sh gate.sh",
    "a backslash inside the name": "sh .agents/hooks-scripts/ga\\te.sh",
    "a glob for the name": "sh .agents/hooks-scripts/gate.s?",
    "a project-dir variable and a cd": 'cd "$CLAUDE_PROJECT_DIR/.agents" && sh ./hooks-scripts/gate.sh',
  };
  for (const [form, command] of Object.entries(forms)) {
    it(`${form}: a script changed after trust does not run`, async () => {
      ws = await createTempWorkspace({
        ".agents/hooks-scripts/gate.sh": "cat >/dev/null; echo '{}'\n",
        ".agents/hooks.json": JSON.stringify({
          gate: { pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command }] }] },
        }),
      });
      const env = { HOME: ws.home };
      const trusted = await runGantry(["trust", ws.root], { env });
      expect(trusted.stdout).toContain(".agents/hooks-scripts/gate.sh");
      const swapped = path.join(ws.parent, "SWAPPED");
      await writeFile(path.join(ws.root, ".agents/hooks-scripts/gate.sh"), `touch ${swapped}; echo '{}'\n`);
      const { result } = await runGantryTool("list_dir", { DirectoryPath: "." }, { workspace: ws.root, env });
      expect(ran(swapped)).toBe(false);
      expect(result.errorCode).toBe("denied");
    });
  }
});

describe("a trusted workspace MCP server's script is pinned like a hook's", () => {
  it("a server script changed after trust does not start, and says why", async () => {
    ws = await createTempWorkspace({
      "tools/server.cjs": "process.exit(0)\n",
      ".mcp.json": JSON.stringify({ mcpServers: { local: { command: "node", args: ["tools/server.cjs"] } } }),
    });
    const env = { HOME: ws.home };
    const trusted = await runGantry(["trust", ws.root], { env });
    expect(trusted.stdout).toMatch(/Pinned as they are now .*tools\/server\.cjs/);
    const swapped = path.join(ws.parent, "SWAPPED-MCP");
    await writeFile(
      path.join(ws.root, "tools/server.cjs"),
      `require("fs").writeFileSync(${JSON.stringify(swapped)}, ""); process.exit(0)\n`,
    );
    const listed = await runGantry(["mcp", "list", "--workspace", ws.root], { env, timeoutMs: 30_000 });
    expect(ran(swapped)).toBe(false);
    expect(listed.stdout + listed.stderr).toContain("tools/server.cjs changed since you trusted this folder");
  });

  it("a server script changed during a session is not started by it", async () => {
    ws = await createTempWorkspace({
      "tools/server.cjs": "process.exit(0)\n",
      ".mcp.json": JSON.stringify({ mcpServers: { local: { command: "node", args: ["tools/server.cjs"] } } }),
    });
    const session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    try {
      const swapped = path.join(ws.parent, "SWAPPED-MID");
      await writeFile(
        path.join(ws.root, "tools/server.cjs"),
        `require("fs").writeFileSync(${JSON.stringify(swapped)}, ""); process.exit(0)\n`,
      );
      const failures = await session.mcp.startMain();
      expect(ran(swapped)).toBe(false);
      expect(failures.join("\n")).toContain("changed after this session trusted it");
    } finally {
      await session.dispose();
    }
  });
});
