import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { ran, writeHomeFile } from "./support.js";

// An agent file is the workspace's text: the hooks in its front matter run code once the folder is
// trusted, so trust shows them and pins their scripts; and an untrusted one may not loosen a limit.

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await ws?.cleanup();
  ws = undefined;
});

const agentFile = (front: string) => `---\nname: helper\ndescription: helps\n${front}\n---\nYou help.\n`;
const hooks = {
  PreToolUse: [{ matcher: "", hooks: [{ type: "command", command: "sh .agents/agent-gate.sh" }] }],
};
const start = {
  name: "agent",
  args: { description: "help", prompt: "go", subagent_type: "helper", run_in_background: false },
};
const viewA = { name: "view_file", args: { AbsolutePath: "a.txt" } };

function runPrint(extra: string[] = []) {
  const root = (ws as TempWorkspace).root;
  const model = server as ModelServer;
  return runGantry(
    [
      "-p",
      "go",
      "--model",
      "openai:test-model",
      "--base-url",
      model.baseUrl("openai"),
      "--workspace",
      root,
      ...extra,
    ],
    {
      env: { HOME: (ws as TempWorkspace).home, OPENAI_API_KEY: "k", GANTRY_TRUST_WORKSPACE: "" },
      timeoutMs: 60_000,
    },
  );
}

describe("hooks in an agent file", () => {
  it("gantry trust shows them verbatim and pins their script; a script swapped after trust does not run", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/helper.md": agentFile(`hooks: ${JSON.stringify(hooks)}`),
      ".agents/agent-gate.sh": "cat >/dev/null; exit 0\n",
      "a.txt": "a\n",
    });
    const env = { HOME: ws.home };
    const trusted = await runGantry(["trust", "--workspace", ws.root], { env });
    expect(trusted.code, trusted.stderr).toBe(0);
    expect(trusted.stdout).toContain(
      '  .claude/agents/helper.md\n    hooks: pre_tool_execution "": sh .agents/agent-gate.sh',
    );
    expect(trusted.stdout).toMatch(/Pinned as they are now[^\n]*\.agents\/agent-gate\.sh/);
    const store = JSON.parse(readFileSync(path.join(ws.home, ".agents/trusted-folders.json"), "utf8"));
    expect(store.folders[ws.root].files[".agents/agent-gate.sh"]).toMatch(/^sha256:/);

    const marker = path.join(ws.parent, "SWAPPED-agent-gate");
    await writeFile(path.join(ws.root, ".agents/agent-gate.sh"), `touch ${marker}\n`);
    server = await startModelServer([
      { toolCalls: [start] },
      { toolCalls: [viewA] },
      { text: "viewed" },
      { text: "done" },
    ]);
    const run = await runPrint();
    expect(run.code, run.stderr).toBe(0);
    expect(ran(marker)).toBe(false);
    expect(
      server.requests.some((request) =>
        request.text.includes(".agents/agent-gate.sh changed since you trusted this folder"),
      ),
    ).toBe(true);
  });
});

describe("limits in an agent file of a folder not trusted", () => {
  it("maxTurns above the user's subagents.maxTurns is held to it, and said", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".claude/agents/helper.md": agentFile("maxTurns: 500"),
      "a.txt": "a\n",
    });
    await writeHomeFile(ws, ".agents/settings.json", { subagents: { maxTurns: 1 } });
    server = await startModelServer([
      { toolCalls: [start] },
      // the agent's one turn; a second would be a turn more than the user allows
      { toolCalls: [viewA] },
      { text: "stopped" },
      { text: "done" },
    ]);
    const run = await runPrint();
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('agent type "helper" (');
    expect(run.stderr).toContain(
      "asks for maxTurns 500, more than subagents.maxTurns (1); it runs with 1 (this folder is not trusted)",
    );
  });
});
