import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCallbackAsker } from "../../src/policy/asker.js";
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
      'Denied by hook test-hook: No earlier grant or allow rule covers "git status". Add "Bash(git status)" to permissions.allow in .agents/settings.json, or ask the user with ask_permission first.',
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

  it('"yes, always" saves the rule to .agents/settings.local.json, which the next session loads', async () => {
    await writeFile(path.join(ws.root, "keep.json"), "{}");
    const local = path.join(ws.root, ".agents", "settings.local.json");
    const { asker } = scriptedAsker("always");
    const first = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    const edit = { name: "write_to_file", args: { TargetFile: "src/a.ts", CodeContent: "x" } };
    const result = await first.pipeline.run(edit);
    expect(result.error).toBe(false);
    expect(JSON.parse(await readFile(local, "utf8"))).toEqual({
      permissions: { allow: ["Edit(/src/a.ts)"] },
    });

    const later = scriptedAsker("deny");
    const second = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker: later.asker });
    expect((await second.pipeline.run(edit)).error).toBe(false);
    expect(later.requests).toEqual([]);
    expect(second.permissions.rules().allow.map((r) => [r.text, r.origin])).toEqual([
      ["Edit(/src/a.ts)", ".agents/settings.local.json"],
    ]);
    // another file still asks
    expect(
      (await second.pipeline.run({ ...edit, args: { TargetFile: "src/b.ts", CodeContent: "y" } })).error,
    ).toBe(true);
  });

  it("parallel 'always' answers are all saved", async () => {
    const { asker } = scriptedAsker("always");
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    await Promise.all(
      ["make a", "make b", "make c", "make d"].map((line) =>
        harness.pipeline.run({ name: "run_command", args: { CommandLine: line } }),
      ),
    );
    const saved = JSON.parse(await readFile(path.join(ws.root, ".agents/settings.local.json"), "utf8"));
    expect([...saved.permissions.allow].sort()).toEqual([
      "Bash(make a)",
      "Bash(make b)",
      "Bash(make c)",
      "Bash(make d)",
    ]);
  });

  it("saving keeps what else the local settings file holds", async () => {
    const local = path.join(ws.root, ".agents", "settings.local.json");
    await ws.write(
      ".agents/settings.local.json",
      JSON.stringify({
        limits: { maxOutputChars: 999 },
        permissions: { deny: ["Bash(rm:*)"], allow: ["WebSearch"] },
      }),
    );
    const { asker } = scriptedAsker("always");
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    await harness.pipeline.run(gitStatus);
    expect(JSON.parse(await readFile(local, "utf8"))).toEqual({
      limits: { maxOutputChars: 999 },
      permissions: { deny: ["Bash(rm:*)"], allow: ["WebSearch", "Bash(git status)"] },
    });
  });

  it("a subagent's call is never put to the user: it is denied with what to report to the parent", async () => {
    const { asker, requests } = scriptedAsker("once");
    const harness = policyHarness({ root: ws.root, home: ws.home, mode: "default", asker });
    const result = await harness.pipeline.run(gitStatus, { agentId: "worker-1" });
    expect(result.text).toBe(
      'Denied by approval mode default: no allow rule matches "git status" (run_command). A subagent cannot ask the user: report to your parent agent that this needs approval: run with --approval-mode yolo or add "Bash(git status)" to permissions.allow in .agents/settings.json.',
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
