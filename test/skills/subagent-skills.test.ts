import { afterEach, expect, it } from "vitest";
import { type Agent, createAgent } from "../../src/index.js";
import { initRepo } from "../subagents/support/git.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { put } from "./support.js";

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
let agent: Agent | undefined;
afterEach(async () => {
  await agent?.close();
  await server?.close();
  await ws?.cleanup();
  ws = server = agent = undefined;
});

it("a subagent in the session's folder that can read files gets the skills list too", async () => {
  ws = await createTempWorkspace();
  const skillFile = await put(
    ws.home,
    ".agents/skills/release-notes/SKILL.md",
    "---\nname: release-notes\ndescription: Draft release notes from the git log.\n---\nBody.\n",
  );
  const listed = `- release-notes: Draft release notes from the git log. [${skillFile}]`;
  server = await startModelServer([
    {
      expect: (request) => expect(request.text).toContain(listed),
      toolCalls: [
        {
          name: "agent",
          args: { description: "Draft the notes", prompt: "SUB-TASK: draft them", run_in_background: false },
        },
      ],
    },
    // the subagent's first request: its own system prompt names the skill, not its body
    {
      expect: (request) => {
        expect(request.text).toContain("SUB-TASK");
        expect(request.text).toContain(listed);
        expect(request.text).not.toContain("Body.");
      },
      text: "SUB-REPORT",
    },
    { text: "done" },
  ]);
  agent = await createAgent({
    workspace: ws.root,
    home: ws.home,
    model: "openai:gpt-4.1",
    baseUrl: server.baseUrl("openai"),
    apiKey: "test-key",
  });
  expect((await agent.prompt("notes please")).text).toBe("done");
  expect(server.failures).toEqual([]);
  server.assertDone();
});

it("a subagent in a worktree lists the skills at its own folder's paths, the user's too", async () => {
  ws = await createTempWorkspace({
    ".agents/skills/review/SKILL.md":
      "---\nname: review\ndescription: How this repository reviews.\n---\nBody.\n",
  });
  initRepo(ws.root);
  const homeSkill = await put(
    ws.home,
    ".agents/skills/release-notes/SKILL.md",
    "---\nname: release-notes\ndescription: Draft release notes from the git log.\n---\nBody.\n",
  );
  server = await startModelServer([
    {
      toolCalls: [
        {
          name: "agent",
          args: {
            description: "Review",
            prompt: "SUB-TASK: review",
            isolation: "worktree",
            run_in_background: false,
          },
        },
      ],
    },
    {
      expect: (request) => {
        expect(request.text).toContain(
          `- release-notes: Draft release notes from the git log. [${homeSkill}]`,
        );
        // the worktree's own copy, never the parent folder's
        expect(request.text).toMatch(
          /- review \(workspace\): How this repository reviews\. \[[^\]]*gantry-worktrees[^\]]*review\/SKILL\.md\]/,
        );
        expect(request.text).not.toContain(`${ws?.root}/.agents/skills/review`);
      },
      text: "SUB-REPORT",
    },
    { text: "done" },
  ]);
  agent = await createAgent({
    workspace: ws.root,
    home: ws.home,
    model: "openai:gpt-4.1",
    baseUrl: server.baseUrl("openai"),
    apiKey: "test-key",
    trust: true,
  });
  const result = await agent.prompt("review please");
  expect(server.failures).toEqual([]);
  expect(result.text, JSON.stringify(result)).toBe("done");
  expect(server.failures).toEqual([]);
  server.assertDone();
});
