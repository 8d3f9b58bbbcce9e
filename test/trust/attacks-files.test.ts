import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadProjectInstructions } from "../../src/agent/instructions.js";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { ran, writeHomeFile } from "./support.js";

let ws: TempWorkspace | undefined;
const servers: ModelServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await ws?.cleanup();
  ws = undefined;
});

const SECRET = "AKIA-USERS-OWN-SECRET";

/** Runs `gantry -p` against a scripted model; returns everything the model was sent and stderr. */
async function promptSeen(root: string, home: string): Promise<{ sent: string; stderr: string }> {
  const model = await startModelServer([{ text: "done" }]);
  servers.push(model);
  await writeHomeFile(ws!, ".agents/settings.json", {
    model: "openai:gpt-4.1",
    baseUrl: model.baseUrl("openai"),
  });
  const run = await runGantry(["-p", "hi", "--workspace", root], {
    env: { HOME: home, OPENAI_API_KEY: "sk-test" },
    timeoutMs: 60_000,
  });
  expect(run.code, run.stderr).toBe(0);
  return { sent: model.requests.map((request) => request.text).join("\n"), stderr: run.stderr };
}

describe("project instruction files are the workspace's own text", () => {
  it("an AGENTS.md that links to a file outside the workspace is not read into the prompt", async () => {
    ws = await createTempWorkspace({});
    const outside = path.join(ws.home, ".aws/credentials");
    await mkdir(path.dirname(outside), { recursive: true });
    await writeFile(outside, `aws_secret_access_key = ${SECRET}\n`);
    await symlink(outside, path.join(ws.root, "AGENTS.md"));
    await ws.write("CLAUDE.md", "Use tabs.\n");
    const { sent, stderr } = await promptSeen(ws.root, ws.home);
    expect(sent).not.toContain(SECRET);
    expect(sent).toContain("Use tabs.");
    expect(stderr).toContain("AGENTS.md");
  });

  it("a CLAUDE.md that links to a secret file of the workspace is not read into the prompt", async () => {
    ws = await createTempWorkspace({ ".env": `API_KEY=${SECRET}\n` });
    await symlink(".env", path.join(ws.root, "CLAUDE.md"));
    const { sent, stderr } = await promptSeen(ws.root, ws.home);
    expect(sent).not.toContain(SECRET);
    expect(stderr).toContain("CLAUDE.md");
  });

  it("an AGENTS.md that is a named pipe is skipped instead of blocking the session's start", async () => {
    ws = await createTempWorkspace({ "CLAUDE.md": "Use tabs.\n" });
    execFileSync("mkfifo", [path.join(ws.root, "AGENTS.md")]);
    const read = loadProjectInstructions(ws.root);
    expect(read.map((instruction) => instruction.file)).toEqual(["CLAUDE.md"]);
  });
});
describe("agent definitions are read where the workspace holds them", () => {
  it("an agent file that links out of the workspace is not read", async () => {
    ws = await createTempWorkspace({});
    const outside = path.join(ws.home, "notes/private.md");
    await mkdir(path.dirname(outside), { recursive: true });
    await writeFile(outside, `---\nname: leak\ndescription: ${SECRET}\n---\n${SECRET}\n`);
    await mkdir(path.join(ws.root, ".claude/agents"), { recursive: true });
    await symlink(outside, path.join(ws.root, ".claude/agents/leak.md"));
    const { sent } = await promptSeen(ws.root, ws.home);
    expect(sent).not.toContain(SECRET);
  });

  it("an agents folder that links out of the workspace is not read", async () => {
    ws = await createTempWorkspace({});
    const outside = path.join(ws.home, "notes");
    await mkdir(outside, { recursive: true });
    await writeFile(
      path.join(outside, "private.md"),
      `---\nname: leak\ndescription: ${SECRET}\n---\n${SECRET}\n`,
    );
    await mkdir(path.join(ws.root, ".agents"), { recursive: true });
    await symlink(outside, path.join(ws.root, ".agents/agents"));
    const { sent } = await promptSeen(ws.root, ws.home);
    expect(sent).not.toContain(SECRET);
    const listed = await runGantry(["agents", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(listed.stdout + listed.stderr).toContain("links outside the workspace");
  });
});

describe("agent front matter of other harnesses never loosens", () => {
  it("permissionMode: plan keeps the subagent to read-only tools, even under yolo", async () => {
    ws = await createTempWorkspace({});
    const marker = path.join(ws.parent, "SUBAGENT-WROTE");
    await writeHomeFile(
      ws,
      ".claude/agents/reviewer.md",
      "---\nname: reviewer\ndescription: Reviews.\npermissionMode: plan\n---\nReview.\n",
    );
    const command = { CommandLine: `touch ${marker}`, Cwd: ws.root, WaitMsBeforeAsync: 5000 };
    const model = await startModelServer([
      {
        toolCalls: [
          {
            name: "agent",
            args: {
              description: "review it",
              prompt: "review",
              subagent_type: "reviewer",
              run_in_background: false,
            },
          },
        ],
      },
      { toolCalls: [{ name: "run_command", args: command }] },
      { text: "reviewed" },
      { text: "done" },
    ]);
    servers.push(model);
    await writeHomeFile(ws, ".agents/settings.json", {
      model: "openai:gpt-4.1",
      baseUrl: model.baseUrl("openai"),
    });
    const run = await runGantry(["-p", "go", "--workspace", ws.root, "--approval-mode", "yolo"], {
      env: { HOME: ws.home, OPENAI_API_KEY: "sk-test" },
      timeoutMs: 60_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(ran(marker)).toBe(false);
  });
});
