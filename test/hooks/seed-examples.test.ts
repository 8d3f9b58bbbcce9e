import { afterEach, describe, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hookHarness, hooksJson, startServer } from "./support.js";

// seed 002's configuration and scripts, verbatim. Its `/.agents/...` commands name the sandbox root, i.e. the
// workspace; its privacy gate reads the container's `path`, which native events carry beside AbsolutePath.
const GATE_PY = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
cmd = str(data.get("tool_call", {}).get("args", {}))
if "rm -rf" in cmd:
    print(json.dumps({"decision": "deny", "reason": "Destructive command blocked by security gate."}))
else:
    print(json.dumps({"decision": "allow"}))
`;

const CHECK_PRIVACY_PY = `#!/usr/bin/env python3
import sys, json
data = json.load(sys.stdin)
path = str(data.get("tool_call", {}).get("args", {}).get("path", ""))

if "/private/" in path:
    resp = {
        "decision": "deny",
        "reason": "Access to confidential \`/private/\` records is blocked by PII compliance policy. Query approved \`/public/\` summary tables instead."
    }
else:
    resp = {"decision": "allow"}

print(json.dumps(resp))
`;

let ws: TempWorkspace;
afterEach(async () => ws?.cleanup());

describe("seed 002 examples", () => {
  it("the security gate (a Python script) blocks rm -rf and lets other commands run", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks-scripts/gate.py": GATE_PY,
      ".agents/hooks.json": hooksJson({
        "security-gate": {
          pre_tool_execution: [
            {
              matcher: "code_execution",
              hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }],
            },
          ],
        },
      }),
    });
    const { pipeline, commands, log } = hookHarness(ws);
    const denied = await pipeline.run({
      name: "code_execution",
      args: { CommandLine: "rm -rf /tmp/forbidden" },
    });
    expect(denied.error).toBe(true);
    expect(denied.errorCode).toBe("denied");
    expect(denied.text).toBe("Denied by hook security-gate: Destructive command blocked by security gate.");
    // the canonical name matches the alias's matcher too: the gate cannot be bypassed by renaming the call
    const canonical = await pipeline.run({ name: "run_command", args: { CommandLine: "rm -rf build" } });
    expect(canonical.errorCode).toBe("denied");
    const allowed = await pipeline.run({ name: "code_execution", args: { CommandLine: "ls -la" } });
    expect(allowed).toMatchObject({ error: false, text: "ran" });
    expect(commands).toEqual(["ls -la"]);
    expect(log).toEqual([]);
  });

  it("the privacy gate denies /private/ with a reason that sends the model to /public/, which it then reads", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks-scripts/check_privacy.py": CHECK_PRIVACY_PY,
      "private/employees.json": '{"employees": [{"id": 1, "salary": 150000, "ssn": "000-00-0000"}]}',
      "public/summary.json": '{"department": "Engineering", "team_size": 42, "status": "active"}',
      ".agents/hooks.json": hooksJson({
        "privacy-gate": {
          pre_tool_execution: [
            {
              matcher: "read_file",
              hooks: [
                { type: "command", command: "python3 /.agents/hooks-scripts/check_privacy.py", timeout: 5 },
              ],
            },
          ],
        },
      }),
    });
    const { pipeline } = hookHarness(ws);
    const first = await pipeline.run({
      name: "read_file",
      args: { AbsolutePath: `${ws.root}/private/employees.json` },
    });
    expect(first.errorCode).toBe("denied");
    expect(first.text).not.toContain("000-00-0000");
    expect(first.text).toContain("Query approved `/public/` summary tables instead.");
    // the model adapts: the path it is pointed to
    const second = await pipeline.run({
      name: "view_file",
      args: { AbsolutePath: `${ws.root}/public/summary.json` },
    });
    expect(second).toMatchObject({ error: false });
    expect(second.text).toContain('"team_size": 42');
  });

  it("the audit hook POSTs pre and post events to a server on 127.0.0.1, with error only after a failure", async () => {
    const server = await startServer();
    try {
      const audit = (event: string) => ({
        [event]: [
          {
            matcher: "read_file|write_file",
            hooks: [
              {
                type: "http",
                url: `${server.url}/api/v1/agent-events`,
                headers: { Authorization: "Bearer ${AUDIT_TOKEN}", "X-Event-Source": "agent-sandbox" },
                timeout: 10,
              },
            ],
          },
        ],
      });
      ws = await createTempWorkspace({
        ".agents/hooks.json": hooksJson({
          "audit-logging": { ...audit("pre_tool_execution"), ...audit("post_tool_execution") },
        }),
      });
      const { pipeline, log } = hookHarness(ws, {
        ...process.env,
        AUDIT_TOKEN: "telemetry_secret_token_123",
      });
      const wrote = await pipeline.run({
        name: "write_file",
        args: { TargetFile: "audit.log", CodeContent: "event 1" },
      });
      expect(wrote.error).toBe(false);
      const missing = await pipeline.run({ name: "read_file", args: { AbsolutePath: "audit.log" } });
      expect(missing.error).toBe(true);
      await pipeline.run({ name: "run_command", args: { CommandLine: "echo unaudited" } });

      expect(server.requests.map((r) => (r.body as { hook_event_name: string }).hook_event_name)).toEqual([
        "pre_tool_execution",
        "post_tool_execution",
        "pre_tool_execution",
        "post_tool_execution",
      ]);
      const [pre, postOk, , postFailed] = server.requests.map((r) => r.body as Record<string, unknown>);
      expect(pre).toEqual({
        hook_event_name: "pre_tool_execution",
        tool_call: {
          name: "write_to_file",
          args: {
            TargetFile: "audit.log",
            CodeContent: "event 1",
            path: `${ws.root}/audit.log`,
            content: "event 1",
          },
        },
        environment_id: "env_test",
        agent_id: "main",
      });
      expect(postOk).not.toHaveProperty("error");
      expect(postFailed?.error).toContain("ENOENT");
      expect(server.requests[0]?.url).toBe("/api/v1/agent-events");
      expect(server.requests[0]?.headers.authorization).toBe("Bearer telemetry_secret_token_123");
      expect(server.requests[0]?.headers["x-event-source"]).toBe("agent-sandbox");
      expect(log).toEqual([]);
    } finally {
      await server.close();
    }
  });
});

const SECURITY_GATE = hooksJson({
  "security-gate": {
    pre_tool_execution: [
      {
        matcher: "code_execution",
        hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/gate.py", timeout: 10 }],
      },
    ],
  },
});
const PRIVACY_GATE = hooksJson({
  "privacy-gate": {
    pre_tool_execution: [
      {
        matcher: "read_file",
        hooks: [{ type: "command", command: "python3 /.agents/hooks-scripts/check_privacy.py", timeout: 5 }],
      },
    ],
  },
});

describe("seed 002 examples end to end (gantry -p, the scripted model)", () => {
  let model: ModelServer | undefined;
  afterEach(async () => model?.close());
  const gantry = (prompt: string) =>
    runGantry(
      [
        "-p",
        prompt,
        "--model",
        "openai:m",
        "--base-url",
        model?.baseUrl("openai") ?? "",
        "--workspace",
        ws.root,
        "--trust",
      ],
      { env: { HOME: ws.home, OPENAI_API_KEY: "k" }, timeoutMs: 60_000 },
    );
  const command = (line: string) => ({
    name: "code_execution",
    args: { CommandLine: line, Cwd: ".", WaitMsBeforeAsync: 10_000 },
  });

  it("the security gate's allow runs a command without the approval question; rm -rf is denied", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".agents/hooks-scripts/gate.py": GATE_PY,
      ".agents/hooks.json": SECURITY_GATE,
    });
    model = await startModelServer([
      { toolCalls: [command("rm -rf /tmp/forbidden")] },
      {
        expect: (r) => expect(r.text).toContain("Destructive command blocked by security gate."),
        toolCalls: [command("echo listed-by-gate")],
      },
      {
        expect: (r) => expect(r.text).toContain("\\nlisted-by-gate"),
        text: "I could not delete it; I listed instead.",
      },
    ]);
    const run = await gantry("Run `rm -rf /tmp/forbidden` using code_execution.");
    expect(run.code).toBe(0);
    model.assertDone();
  });

  it("the privacy gate sends the model from /private/ to /public/, whose summary it gives", {
    timeout: 120_000,
  }, async () => {
    ws = await createTempWorkspace({
      ".agents/hooks-scripts/check_privacy.py": CHECK_PRIVACY_PY,
      ".agents/hooks.json": PRIVACY_GATE,
      "private/employees.json": '{"employees": [{"id": 1, "salary": 150000, "ssn": "000-00-0000"}]}',
      "public/summary.json": '{"department": "Engineering", "team_size": 42, "status": "active"}',
    });
    model = await startModelServer([
      // the model names the file relative to the workspace: the gate still sees /private/ in the path
      { toolCalls: [{ name: "read_file", args: { AbsolutePath: "private/employees.json" } }] },
      {
        expect: (r) => {
          expect(r.text).toContain("Query approved `/public/` summary tables instead.");
          expect(r.text).not.toContain("000-00-0000");
        },
        toolCalls: [{ name: "read_file", args: { AbsolutePath: "public/summary.json" } }],
      },
      { expect: (r) => expect(r.text).toContain("team_size"), text: "Engineering has 42 people." },
    ]);
    const run = await gantry("Use your filesystem tool to read `private/employees.json` and summarize it.");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Engineering has 42 people.");
    model.assertDone();
  });
});
