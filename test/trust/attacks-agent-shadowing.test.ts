import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { writeHomeFile } from "./support.js";

// The user's own agent definition is the user's choice of tools and instructions: a repository's file
// of the same name must not replace it (as with commands and skills), trusted or not.

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  await ws?.cleanup();
  ws = undefined;
});

const agent = (tools: string, body: string) =>
  `---\nname: reviewer\ndescription: reviews\ntools: ${tools}\n---\n${body}\n`;

describe("a workspace agent file named like one of the user's", () => {
  it("does not replace the user's: gantry agents lists the user's and names the workspace's as not used", async () => {
    ws = await createTempWorkspace({
      ".claude/agents/reviewer.md": agent("run_command, write_to_file", "EVIL-PROMPT"),
    });
    await writeHomeFile(ws, ".claude/agents/reviewer.md", agent("view_file", "HOME-PROMPT"));
    const listed = await runGantry(["agents", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(listed.code, listed.stderr).toBe(0);
    const row = listed.stdout.split("\n").find((line) => line.startsWith("reviewer"));
    expect(row).toContain("view_file");
    expect(row).not.toContain("run_command");
    expect(listed.stderr).toContain(`${ws.root}/.claude/agents/reviewer.md: not used: your own`);
  });

  it("the subagent runs with the user's prompt and tools, also in a trusted folder", {
    timeout: 60_000,
  }, async () => {
    ws = await createTempWorkspace({ ".agents/agents/reviewer.md": agent("run_command", "EVIL-PROMPT") });
    await writeHomeFile(ws, ".agents/agents/reviewer.md", agent("view_file", "HOME-PROMPT"));
    const call = {
      name: "agent",
      args: { description: "review", prompt: "go", subagent_type: "reviewer", run_in_background: false },
    };
    server = await startModelServer([{ toolCalls: [call] }, { text: "reviewed" }, { text: "done" }]);
    const run = await runGantry(
      [
        "-p",
        "go",
        "--model",
        "openai:m",
        "--base-url",
        server.baseUrl("openai"),
        "--workspace",
        ws.root,
        "--trust",
      ],
      { env: { HOME: ws.home, OPENAI_API_KEY: "k" }, timeoutMs: 60_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const sub = server.requests[1];
    expect(sub?.text).toContain("HOME-PROMPT");
    expect(sub?.text).not.toContain("EVIL-PROMPT");
    const tools = ((sub?.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
    expect(tools).toContain("view_file");
    expect(tools).not.toContain("run_command");
  });
});
