import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { policyHarness, scriptedAsker } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

function hookAnswering(decision: string, matcher: string): string {
  return JSON.stringify({
    gate: {
      pre_tool_execution: [
        {
          matcher,
          hooks: [
            {
              type: "command",
              command: `echo '{"decision":"${decision}","reason":"review edits"}'`,
              timeout: 10,
            },
          ],
        },
      ],
    },
  });
}

const write = (file: string, text: string) => ({
  name: "write_to_file",
  args: { TargetFile: file, Overwrite: true, CodeContent: text, Description: "write" },
});

describe("permissions with real hooks.json command hooks", () => {
  it("a hook's ask reaches the asker even in auto-edit; 'for this session' then covers it", async () => {
    ws = await createTempWorkspace({ ".agents/hooks.json": hookAnswering("ask", "write_to_file") });
    const { asker, requests } = scriptedAsker("session");
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      approvalMode: "auto-edit",
      asker,
      requireReadBeforeEdit: false,
    });
    expect((await session.pipeline.run(write("a.txt", "one\n"))).error).toBe(false);
    expect((await session.pipeline.run(write("a.txt", "two\n"))).error).toBe(false);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.decision).toEqual({ verdict: "ask", source: "hook gate", reason: "review edits" });
    expect(requests[0]?.preview).toContain("+one");
    expect(await readFile(path.join(ws.root, "a.txt"), "utf8")).toBe("two\n");
  });

  it("a hook's force_ask asks every time, grants notwithstanding; headless it is denied", async () => {
    ws = await createTempWorkspace({ ".agents/hooks.json": hookAnswering("force_ask", "write_to_file") });
    const { asker, requests } = scriptedAsker("once");
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      approvalMode: "yolo",
      asker,
      requireReadBeforeEdit: false,
    });
    session.permissions.grants.add("Edit", "test");
    await session.pipeline.run(write("a.txt", "one\n"));
    await session.pipeline.run(write("a.txt", "two\n"));
    expect(requests).toHaveLength(2);
    await session.dispose();
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      approvalMode: "yolo",
      requireReadBeforeEdit: false,
    });
    const denied = await session.pipeline.run(write("a.txt", "three\n"));
    expect(denied.text).toBe(
      "Denied by hook gate: review edits. Nobody can answer a permission question here (not an interactive terminal), and hook gate wants a person to confirm every time: run it in an interactive terminal.",
    );
  });

  it("a hook's deny_unless_prior_grant passes on an allow rule from .claude/settings.json", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hookAnswering("deny_unless_prior_grant", "view_file"),
      ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Read(docs/**)"] } }),
      "docs/a.md": "# a\n",
      "notes.md": "n\n",
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    expect(
      (await session.pipeline.run({ name: "view_file", args: { AbsolutePath: "docs/a.md" } })).error,
    ).toBe(false);
    const denied = await session.pipeline.run({ name: "view_file", args: { AbsolutePath: "notes.md" } });
    expect(denied.text).toContain(
      'Denied by hook gate: review edits. No earlier grant or allow rule covers "notes.md".',
    );
  });

  it("a deny rule holds for what a hook rewrote the arguments to", async () => {
    ws = await createTempWorkspace({ "a.txt": "a\n", "secrets/k": "k\n" });
    const { asker, requests } = scriptedAsker("once");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      asker,
      settings: { permissions: { deny: ["Read(./secrets/**)"] } },
      hookStep: {
        before: async () => ({
          decision: { verdict: "ask", source: "hook rewriter" },
          args: { AbsolutePath: "secrets/k" },
          additionalContext: [],
        }),
        after: async () => ({ additionalContext: [] }),
      },
    });
    const result = await harness.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } });
    expect(result.text).toBe(
      'Denied by rule deny Read(./secrets/**) (settings given to Gantry): "secrets/k" matches it',
    );
    expect(requests).toEqual([]);
    expect(harness.ran).toEqual([]);
  });

  it("a deny rule holds when a hook rewrites the arguments and allows the call", async () => {
    ws = await createTempWorkspace({ "a.txt": "a\n", "secrets/k": "k\n" });
    const { asker, requests } = scriptedAsker("once");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "yolo",
      asker,
      settings: { permissions: { deny: ["Read(./secrets/**)"] } },
      hookStep: {
        before: async () => ({
          decision: { verdict: "allow", source: "hook rewriter" },
          args: { AbsolutePath: "secrets/k" },
          additionalContext: [],
        }),
        after: async () => ({ additionalContext: [] }),
      },
    });
    const result = await harness.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } });
    expect(result.error).toBe(true);
    expect(result.text).toContain("Denied by rule deny Read(./secrets/**)");
    expect(requests).toEqual([]);
    expect(harness.ran).toEqual([]);
  });
});
