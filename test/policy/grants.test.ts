import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCallbackAsker } from "../../src/policy/asker.js";
import { resolveWorkspaceTrust } from "../../src/trust/workspace-trust.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { policyHarness, scriptedAsker } from "./support.js";

let ws: TempWorkspace;
beforeEach(async () => {
  ws = await createTempWorkspace({ "src/a.ts": "export {};\n" });
});
afterEach(() => ws.cleanup());

const gitStatus = { name: "run_command", args: { CommandLine: "git status" } };

describe("grants", () => {
  it('"yes, for this session" is remembered for the same (action, target) and honoured by ask', async () => {
    const { asker, requests } = scriptedAsker("session");
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    expect((await harness.pipeline.run(gitStatus)).error).toBe(false);
    expect((await harness.pipeline.run(gitStatus)).error).toBe(false);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.grantRules).toEqual(["Bash(git status)"]);
    expect(harness.permissions.grants.list().map((g) => [g.rule.text, g.source])).toEqual([
      ["Bash(git status)", "answer: always for this session"],
    ]);
    // another command is not covered by that grant
    await harness.pipeline.run({ name: "run_command", args: { CommandLine: "git push" } });
    expect(requests).toHaveLength(2);
  });

  it("a grant covers a compound command only when every part is granted or allowed", async () => {
    const { asker, requests } = scriptedAsker("session");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      asker,
      settings: { permissions: { allow: ["Bash(npm test)"] } },
    });
    await harness.pipeline.run({ name: "run_command", args: { CommandLine: "npm test && git status" } });
    expect(requests[0]?.subjects).toEqual(["git status"]);
    await harness.pipeline.run({ name: "run_command", args: { CommandLine: "git status; npm test" } });
    expect(requests).toHaveLength(1);
    await harness.pipeline.run({ name: "run_command", args: { CommandLine: "git status; rm -rf build" } });
    expect(requests).toHaveLength(2);
  });

  it("force_ask asks even when a grant exists", async () => {
    const { asker, requests } = scriptedAsker("once");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      asker,
      hook: "force_ask",
    });
    harness.permissions.grants.add("Bash(git status)", "test");
    await harness.pipeline.run(gitStatus);
    await harness.pipeline.run(gitStatus);
    expect(requests).toHaveLength(2);
    expect(requests[0]).toMatchObject({
      forced: true,
      decision: { verdict: "force_ask", source: "hook test-hook" },
    });
  });

  it("deny_unless_prior_grant passes with a grant or an allow rule and never asks", async () => {
    const { asker, requests } = scriptedAsker("once");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "yolo",
      asker,
      hook: "deny_unless_prior_grant",
      settings: { permissions: { allow: ["Read(src/**)"] } },
    });
    const denied = await harness.pipeline.run(gitStatus);
    expect(denied.text).toBe(
      'Denied by hook test-hook: No earlier grant or allow rule covers "git status". Add "Bash(git status)" to permissions.allow in ~/.agents/settings.json, or ask the user with ask_permission first.',
    );
    harness.permissions.grants.add("Bash(git status)", "ask_permission: check the tree");
    expect((await harness.pipeline.run(gitStatus)).error).toBe(false);
    expect(
      (await harness.pipeline.run({ name: "view_file", args: { AbsolutePath: "src/a.ts" } })).error,
    ).toBe(false);
    expect(requests).toEqual([]);
  });

  it("a grant beats an ask rule (the user said always), an allow rule does not", async () => {
    const { asker, requests } = scriptedAsker("session");
    const harness = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      asker,
      settings: { permissions: { ask: ["Bash(git push:*)"], allow: ["Bash(git:*)"] } },
    });
    const push = { name: "run_command", args: { CommandLine: "git push origin main" } };
    await harness.pipeline.run(push);
    await harness.pipeline.run(push);
    expect(requests).toHaveLength(1);
    expect(requests[0]?.decision.source).toBe("rule ask Bash(git push:*) (settings given to Gantry)");
  });

  it('"yes, always" saves the rule in the user\'s home for this folder; the next session loads it, trusted or not', async () => {
    const answers = path.join(ws.home, ".agents", "folder-permissions.json");
    const { asker } = scriptedAsker("always");
    const untrusted = resolveWorkspaceTrust(ws.root, { kind: "untrusted", how: "test" });
    const first = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker, trust: untrusted });
    const edit = { name: "write_to_file", args: { TargetFile: "src/a.ts", CodeContent: "x" } };
    const result = await first.pipeline.run(edit);
    expect(result.error).toBe(false);
    expect(JSON.parse(await readFile(answers, "utf8"))).toEqual({
      version: 1,
      folders: { [ws.root]: { permissions: { allow: ["Edit(/src/a.ts)"] } } },
    });
    // nothing was written into the workspace
    await expect(readFile(path.join(ws.root, ".agents", "settings.local.json"), "utf8")).rejects.toThrow();

    const later = scriptedAsker("deny");
    const second = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      asker: later.asker,
      trust: untrusted,
    });
    expect((await second.pipeline.run(edit)).error).toBe(false);
    expect(later.requests).toEqual([]);
    expect(second.permissions.rules().allow.map((r) => [r.text, r.origin])).toEqual([
      ["Edit(/src/a.ts)", "~/.agents/folder-permissions.json (your answers for this folder)"],
    ]);
    // another file still asks
    expect(
      (await second.pipeline.run({ ...edit, args: { TargetFile: "src/b.ts", CodeContent: "y" } })).error,
    ).toBe(true);
  });

  it("an answer saved for one folder does not count in another", async () => {
    const other = await createTempWorkspace({ "src/a.ts": "export {};\n" });
    try {
      const { asker } = scriptedAsker("always");
      await policyHarness({ root: ws.root, home: ws.home, mode: "default", asker }).pipeline.run(gitStatus);
      const later = scriptedAsker("deny");
      const elsewhere = policyHarness({
        root: other.root,
        home: ws.home,
        mode: "default",
        asker: later.asker,
      });
      expect((await elsewhere.pipeline.run(gitStatus)).error).toBe(true);
      expect(later.requests).toHaveLength(1);
    } finally {
      await other.cleanup();
    }
  });

  it("parallel 'always' answers are all saved", async () => {
    const { asker } = scriptedAsker("always");
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    await Promise.all(
      ["make a", "make b", "make c", "make d"].map((line) =>
        harness.pipeline.run({ name: "run_command", args: { CommandLine: line } }),
      ),
    );
    const saved = JSON.parse(await readFile(path.join(ws.home, ".agents/folder-permissions.json"), "utf8"));
    expect([...saved.folders[ws.root].permissions.allow].sort()).toEqual([
      "Bash(make a)",
      "Bash(make b)",
      "Bash(make c)",
      "Bash(make d)",
    ]);
  });

  it("saving keeps the answers of other folders", async () => {
    const answers = path.join(ws.home, ".agents", "folder-permissions.json");
    await mkdir(path.dirname(answers), { recursive: true });
    await writeFile(
      answers,
      JSON.stringify({ version: 1, folders: { "/elsewhere": { permissions: { allow: ["WebSearch"] } } } }),
    );
    const { asker } = scriptedAsker("always");
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    await harness.pipeline.run(gitStatus);
    expect(JSON.parse(await readFile(answers, "utf8")).folders).toEqual({
      "/elsewhere": { permissions: { allow: ["WebSearch"] } },
      [ws.root]: { permissions: { allow: ["Bash(git status)"] } },
    });
  });

  it("a subagent's call is never put to the user: it is denied with what to report to the parent", async () => {
    const { asker, requests } = scriptedAsker("once");
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    const result = await harness.pipeline.run(gitStatus, { agentId: "worker-1" });
    expect(result.text).toBe(
      'Denied by approval mode default: no allow rule matches "git status" (run_command). A subagent cannot ask the user: report to your parent agent that this needs approval: run with --approval-mode yolo or add "Bash(git status)" to permissions.allow in ~/.agents/settings.json.',
    );
    expect(requests).toEqual([]);
    // a grant the user gave the main agent covers the subagent too
    harness.permissions.grants.add("Bash(git status)", "test");
    expect((await harness.pipeline.run(gitStatus, { agentId: "worker-1" })).error).toBe(false);
  });
});

describe("asks from parallel calls", () => {
  function slowAsker(choice: "once" | "session") {
    let open = 0;
    let mostOpen = 0;
    const asked: string[] = [];
    const asker = createCallbackAsker({
      onPermission: async (request) => {
        open++;
        mostOpen = Math.max(mostOpen, open);
        asked.push(String(request.args.AbsolutePath));
        await new Promise((resolve) => setTimeout(resolve, 30));
        open--;
        return { choice };
      },
    });
    return { asker, asked, mostOpen: () => mostOpen };
  }

  it("puts one question at a time to the user, in the order the calls came", async () => {
    const { asker, asked, mostOpen } = slowAsker("once");
    // the first call's hook is the slowest: its question must still come first
    const hookDelay: Record<string, number> = { "a.txt": 60, "b.txt": 20, "c.txt": 0 };
    const { pipeline, ran } = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      hookStep: {
        before: async (call) => {
          await new Promise((resolve) => setTimeout(resolve, hookDelay[String(call.args.AbsolutePath)]));
          return {
            decision: { verdict: "ask", source: "hook test-hook" },
            args: call.args,
            additionalContext: [],
          };
        },
        after: async () => ({ additionalContext: [] }),
      },
      asker,
    });
    const results = await Promise.all(
      ["a.txt", "b.txt", "c.txt"].map((file) =>
        pipeline.run({ name: "view_file", args: { AbsolutePath: file } }),
      ),
    );
    expect(results.map((r) => r.error)).toEqual([false, false, false]);
    expect(asked).toEqual(["a.txt", "b.txt", "c.txt"]);
    expect(mostOpen()).toBe(1);
    expect(ran).toHaveLength(3);
  });

  it("lets an answer 'for this session' cover the same call waiting behind it", async () => {
    const { asker, asked } = slowAsker("session");
    const { pipeline, ran } = policyHarness({
      root: ws.root,
      home: ws.home,
      mode: "default",
      hook: "ask",
      asker,
    });
    const call = { name: "view_file", args: { AbsolutePath: "a.txt" } };
    const results = await Promise.all([pipeline.run(call), pipeline.run(call)]);
    expect(results.map((r) => r.error)).toEqual([false, false]);
    expect(asked).toEqual(["a.txt"]);
    expect(ran).toEqual(["view_file", "view_file"]);
  });
});
