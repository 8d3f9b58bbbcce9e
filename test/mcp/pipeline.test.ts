import { readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { Settings } from "../../src/config/settings.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { ApprovalMode } from "../../src/policy/modes.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { EVERYTHING, everythingStdio } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

async function open(options: { settings?: Settings; approvalMode?: ApprovalMode; trust?: boolean } = {}) {
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    mcpServers: { everything: everythingStdio() },
    defaultApprovalMode: "default",
    ...options,
  });
  await session.mcp.startMain();
  return session;
}

const echo = (message: string) => ({ name: "mcp__everything__echo", args: { message } });

describe("permission rules for MCP tools (Claude Code's syntax)", () => {
  it("a deny rule naming the server denies each of its tools, in yolo too", async () => {
    ws = await createTempWorkspace();
    const s = await open({ settings: { permissions: { deny: ["mcp__everything"] } }, approvalMode: "yolo" });
    const result = await s.pipeline.run(echo("hi"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("mcp__everything");
  }, 60_000);

  it("a deny rule for one tool leaves the server's other tools alone", async () => {
    ws = await createTempWorkspace();
    const s = await open({
      settings: { permissions: { deny: ["mcp__everything__get-sum"] } },
      approvalMode: "yolo",
    });
    const sum = await s.pipeline.run({ name: "mcp__everything__get-sum", args: { a: 1, b: 2 } });
    expect(sum.errorCode).toBe("denied");
    expect((await s.pipeline.run(echo("ok"))).error).toBe(false);
  }, 60_000);

  it("asks in the default mode (denied headless, naming the rule that would allow it)", async () => {
    ws = await createTempWorkspace();
    const s = await open();
    const result = await s.pipeline.run(echo("hi"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("mcp__everything__echo");
  }, 60_000);

  it("an allow rule mcp__server__* or mcp__server lets the server's tools run without asking", async () => {
    ws = await createTempWorkspace();
    for (const rule of ["mcp__everything__*", "mcp__everything", "mcp__everything__echo"]) {
      const s = await open({ settings: { permissions: { allow: [rule] } } });
      const result = await s.pipeline.run(echo(rule));
      expect(result.error, rule).toBe(false);
      await s.dispose();
    }
    session = undefined;
  }, 90_000);

  it("plan mode denies MCP tools", async () => {
    ws = await createTempWorkspace();
    const s = await open({ approvalMode: "plan" });
    expect((await s.pipeline.run(echo("hi"))).errorCode).toBe("denied");
  }, 60_000);
});

describe("hooks on MCP tools", () => {
  it("a native hook whose matcher names the MCP tool denies it with its reason", async () => {
    ws = await createTempWorkspace();
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(
      path.join(ws.home, ".agents", "hooks.json"),
      JSON.stringify({
        gate: {
          pre_tool_execution: [
            {
              matcher: "mcp__everything__.*",
              hooks: [
                {
                  type: "command",
                  command: `echo '{"decision":"deny","reason":"no MCP echo today"}'`,
                },
              ],
            },
          ],
        },
      }),
    );
    const s = await open({ approvalMode: "yolo" });
    const result = await s.pipeline.run(echo("hi"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("no MCP echo today");
  }, 60_000);

  it("Claude Code hooks see the mcp__ name, Gemini CLI hooks the mcp_ name and mcp_context", async () => {
    ws = await createTempWorkspace();
    const log = (name: string) => `cat > ${JSON.stringify(path.join(ws.parent, `${name}.json`))}`;
    await ws.write(
      ".claude/settings.json",
      JSON.stringify({
        hooks: {
          PreToolUse: [
            { matcher: "mcp__everything__echo", hooks: [{ type: "command", command: log("claude") }] },
          ],
        },
      }),
    );
    await ws.write(
      ".gemini/settings.json",
      JSON.stringify({
        hooks: {
          AfterTool: [{ matcher: "mcp_everything_.*", hooks: [{ type: "command", command: log("gemini") }] }],
        },
      }),
    );
    const s = await open({ approvalMode: "yolo", trust: true });
    const result = await s.pipeline.run(echo("seen by hooks"));
    expect(result.error).toBe(false);
    const claude = JSON.parse(readFileSync(path.join(ws.parent, "claude.json"), "utf8"));
    expect(claude).toMatchObject({
      hook_event_name: "PreToolUse",
      tool_name: "mcp__everything__echo",
      tool_input: { message: "seen by hooks" },
    });
    expect(claude).not.toHaveProperty("mcp_context");
    const gemini = JSON.parse(readFileSync(path.join(ws.parent, "gemini.json"), "utf8"));
    expect(gemini).toMatchObject({
      tool_name: "mcp_everything_echo",
      tool_input: { message: "seen by hooks" },
      mcp_context: {
        server_name: "everything",
        tool_name: "echo",
        command: process.execPath,
        args: [EVERYTHING, "stdio"],
      },
    });
    expect(JSON.stringify(gemini.tool_response)).toContain("seen by hooks");
  }, 60_000);

  it("a Gemini BeforeTool guard on mcp_<server>_.* denies the call; mcp_context holds no env or expanded secret", async () => {
    ws = await createTempWorkspace();
    const guard = `import json, os, sys
event = json.load(sys.stdin)
with open(os.path.join(os.environ["GEMINI_PROJECT_DIR"], "..", "before.json"), "w") as out:
    json.dump(event, out)
print(json.dumps({"decision": "deny", "reason": "no " + event["mcp_context"]["tool_name"] + " from " + event["mcp_context"]["server_name"]}))
`;
    await ws.write(".gemini/hooks/guard.py", guard);
    await ws.write(
      ".gemini/settings.json",
      JSON.stringify({
        hooks: {
          BeforeTool: [
            {
              matcher: "mcp_everything_.*",
              hooks: [{ type: "command", command: 'python3 "$GEMINI_PROJECT_DIR/.gemini/hooks/guard.py"' }],
            },
          ],
        },
      }),
    );
    process.env.EVERYTHING_TOKEN = "t0ken";
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      mcpServers: {
        everything: everythingStdio({
          args: [EVERYTHING, "stdio", "${EVERYTHING_TOKEN}"],
          env: { API_KEY: "s3cret" },
        }),
      },
      approvalMode: "yolo",
      trust: true,
    });
    try {
      await session.mcp.startMain();
    } finally {
      delete process.env.EVERYTHING_TOKEN;
    }
    const result = await session.pipeline.run(echo("hi"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("no echo from everything");
    const seen = readFileSync(path.join(ws.parent, "before.json"), "utf8");
    expect(JSON.parse(seen).mcp_context.args).toEqual([EVERYTHING, "stdio", "${EVERYTHING_TOKEN}"]);
    expect(seen).not.toContain("s3cret");
    expect(seen).not.toContain("t0ken");
  }, 60_000);
});
