import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type RecordedRequest, startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";
import { E2E, gantryOn, sees, serverAndWorkspace, touch } from "./e2e-cli.js";

const t = serverAndWorkspace();

/** Claude Code's agent hook, as its docs write one: a judge that may read the workspace first. */
const agentHook = (prompt: string) =>
  JSON.stringify({
    hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "agent", prompt }] }] },
  });
const toolNames = (request: RecordedRequest) =>
  ((request.body.tools ?? []) as { function?: { name?: string } }[]).map((tool) => tool.function?.name);

describe("Claude Code's agent hooks, end to end", () => {
  it(
    "the judge reads the workspace with its read-only tools, then its ok false denies the call",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({
        ".claude/settings.json": agentHook(
          "Allow a deploy only if NOTES.md allows deploys. The call: $ARGUMENTS",
        ),
        "NOTES.md": "Deploys are frozen until Monday.\n",
      });
      t.server = await startModelServer([
        { toolCalls: [touch("deployed")] },
        // the judge: its own conversation, the hook's prompt with the event, only the read-only tools
        {
          toolCalls: [{ name: "view_file", args: { AbsolutePath: "NOTES.md" } }],
          expect: (request) => {
            sees("Allow a deploy only if", "touch deployed", "Read what you need")(request);
            expect(toolNames(request).sort()).toEqual([
              "find_by_name",
              "grep_search",
              "list_dir",
              "view_file",
            ]);
          },
        },
        {
          text: '{"ok": false, "reason": "NOTES.md says deploys are frozen"}',
          expect: sees("Deploys are frozen until Monday."),
        },
        { text: "understood", expect: sees("NOTES.md says deploys are frozen") },
      ]);
      const result = await gantryOn(t.server, t.ws, ["-p", "deploy", "--approval-mode", "yolo"]);
      expect(result.code, result.stderr).toBe(0);
      t.server.assertDone();
      expect(existsSync(`${t.ws.root}/deployed`)).toBe(false);
    },
  );

  it(
    "the judge cannot run what is not a read (the pipeline refuses it); ok true lets the call run",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({ ".claude/settings.json": agentHook("Allow harmless commands.") });
      t.server = await startModelServer([
        { toolCalls: [touch("harmless")] },
        { toolCalls: [touch("by-the-judge")] },
        { text: '{"ok": true}', expect: sees("is not in this agent's tool list") },
        { text: "done" },
      ]);
      const result = await gantryOn(t.server, t.ws, ["-p", "touch it", "--approval-mode", "yolo"]);
      expect(result.code, result.stderr).toBe(0);
      t.server.assertDone();
      expect(existsSync(`${t.ws.root}/by-the-judge`)).toBe(false);
      expect(existsSync(`${t.ws.root}/harmless`)).toBe(true);
    },
  );

  it(
    "an agent hook that matches the judge's own reads does not judge them (no endless judging)",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({
        ".claude/settings.json": JSON.stringify({
          hooks: { PreToolUse: [{ matcher: "*", hooks: [{ type: "agent", prompt: "Is this call fine?" }] }] },
        }),
        "a.txt": "alpha\n",
      });
      t.server = await startModelServer([
        { toolCalls: [{ name: "view_file", args: { AbsolutePath: "a.txt" } }] },
        // one judge for the main agent's call; its own read runs unjudged
        {
          toolCalls: [{ name: "view_file", args: { AbsolutePath: "a.txt" } }],
          expect: sees("Is this call fine?"),
        },
        { text: '{"ok": true}', expect: sees("alpha") },
        { text: "it says alpha", expect: sees("alpha") },
      ]);
      const result = await gantryOn(t.server, t.ws, ["-p", "read a.txt"]);
      expect(result.code, result.stderr).toBe(0);
      t.server.assertDone();
      expect(result.stdout).toContain("it says alpha");
    },
  );
});
