import { readFile, writeFile } from "node:fs/promises";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { loadHookConfig } from "../../src/hooks/config.js";
import { defineTool, okResult } from "../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { hooksJson } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

const privacyGate = hooksJson({
  "privacy-gate": {
    pre_tool_execution: [
      {
        matcher: "read_file",
        hooks: [
          {
            type: "command",
            command: `python3 -c 'import json,sys; p=json.load(sys.stdin)["tool_call"]["args"]["AbsolutePath"]; print(json.dumps({"decision":"deny","reason":"Query approved /public/ summary tables instead."} if "/private/" in p else {"decision":"allow"}))'`,
            timeout: 5,
          },
        ],
      },
    ],
  },
});

describe("hooks in a Gantry session", () => {
  it("guard the built-in view_file: the model is sent from /private/ to /public/", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": privacyGate,
      "private/employees.json": '{"ssn": "000-00-0000"}',
      "public/summary.json": '{"team_size": 42}',
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    const denied = await session.pipeline.run({
      name: "view_file",
      args: { AbsolutePath: `${ws.root}/private/employees.json` },
    });
    expect(denied).toMatchObject({
      errorCode: "denied",
      text: "Denied by hook privacy-gate: Query approved /public/ summary tables instead.",
    });
    const read = await session.pipeline.run({
      name: "view_file",
      args: { AbsolutePath: `${ws.root}/public/summary.json` },
    });
    expect(read.error).toBe(false);
    expect(read.text).toContain("team_size");
  });

  it("are a snapshot: editing hooks.json mid-session changes nothing until a new session", async () => {
    ws = await createTempWorkspace({ ".agents/hooks.json": hooksJson({}), "a.txt": "hello\n" });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    await writeFile(
      `${ws.root}/.agents/hooks.json`,
      hooksJson({
        lock: {
          pre_tool_execution: [
            { matcher: "", hooks: [{ type: "command", command: `echo '{"decision":"deny"}'` }] },
          ],
        },
      }),
    );
    expect((await session.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } })).error).toBe(
      false,
    );
    await session.dispose();
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    expect((await session.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } })).text).toBe(
      "Denied by hook lock.",
    );
  });

  it("change on reloadHooks; a broken file there leaves the snapshot as it was", async () => {
    ws = await createTempWorkspace({ ".agents/hooks.json": hooksJson({}), "a.txt": "hello\n" });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    const read = () => session!.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } });
    const lock = hooksJson({
      lock: {
        pre_tool_execution: [
          { matcher: "", hooks: [{ type: "command", command: `echo '{"decision":"deny"}'` }] },
        ],
      },
    });
    await writeFile(`${ws.root}/.agents/hooks.json`, lock);
    expect((await read()).error).toBe(false);
    expect(session.reloadHooks().groups.map((group) => group.name)).toEqual(["lock"]);
    expect((await read()).text).toBe("Denied by hook lock.");
    await writeFile(`${ws.root}/.agents/hooks.json`, "{ not json");
    expect(() => session!.reloadHooks()).toThrow(/hooks\.json/);
    expect((await read()).text).toBe("Denied by hook lock.");
  });

  it("see every tool in the registry and the calls subagents make, with their agent_id", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        audit: {
          pre_tool_execution: [
            {
              matcher: "mcp__.*",
              hooks: [{ type: "command", command: "cat >> events.jsonl; echo >> events.jsonl" }],
            },
          ],
        },
      }),
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
    session.registry.register(
      defineTool({
        spec: {
          name: "mcp__db__query",
          description: "an MCP tool",
          parameters: z.object({ sql: z.string().describe("query") }),
          safety: "network",
          group: "Command",
        },
        execute: async () => okResult("rows"),
      }),
    );
    await session.pipeline.run({ name: "mcp__db__query", args: { sql: "select 1" } });
    await session.pipeline.run({ name: "mcp__db__query", args: { sql: "select 2" } }, { agentId: "agent_7" });
    const events = (await readFile(`${ws.root}/events.jsonl`, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(events.map((e) => [e.tool_call.args.sql, e.agent_id])).toEqual([
      ["select 1", "main"],
      ["select 2", "agent_7"],
    ]);
  });

  it("carry over to a session opened with the parent's snapshot (a subagent's worktree)", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        lock: {
          pre_tool_execution: [
            { matcher: "", hooks: [{ type: "command", command: `echo '{"decision":"deny"}'` }] },
          ],
        },
      }),
      "worktree/a.txt": "x\n",
    });
    const hookConfig = loadHookConfig(ws.root, ws.home);
    session = createGantrySession({ workspace: `${ws.root}/worktree`, home: ws.home, hookConfig });
    const result = await session.pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt" } });
    expect(result.text).toBe("Denied by hook lock.");
  });

  it("refuse to start a session whose hooks file is broken, naming the file and the problem", async () => {
    ws = await createTempWorkspace({
      ".agents/hooks.json": hooksJson({
        g: { pre_tool_execution: [{ matcher: "", hooks: [{ type: "command", command: "" }] }] },
      }),
    });
    expect(() => createGantrySession({ workspace: ws.root, home: ws.home, trust: true })).toThrow(
      `invalid hooks configuration:\n  ${ws.root}/.agents/hooks.json: g.pre_tool_execution[0].hooks[0].command: must be a non-empty string`,
    );
  });
});
