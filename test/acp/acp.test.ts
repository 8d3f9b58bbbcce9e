import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import {
  type ClientConnection,
  client,
  ndJsonStream,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from "@agentclientprotocol/sdk";
import { afterEach, describe, expect, it } from "vitest";
import { everythingStdio } from "../mcp/support.js";
import { GANTRY_BIN } from "../support/cli.js";
import { type ModelServer, type ScriptedTurn, startModelServer } from "../support/model-server.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

const E2E = { timeout: 120_000 };
let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
const editors: Editor[] = [];
afterEach(async () => {
  for (const editor of editors.splice(0)) await editor.quit();
  await server?.close();
  await ws?.cleanup();
});

/** An editor as the official ACP client sees it: `gantry --acp` as a child process, driven over stdio. */
interface Editor {
  connection: ClientConnection;
  updates: SessionNotification[];
  permissions: RequestPermissionRequest[];
  /** Paths the agent read through the editor (fs/read_text_file). */
  reads: string[];
  /** What the agent handed the editor to write (fs/write_text_file); the editor saves it, as Zed does. */
  writes: { path: string; content: string }[];
  /** How the next permission questions are answered, in order (default: allow once). */
  answers: ((request: RequestPermissionRequest) => RequestPermissionResponse)[];
  stderr: () => string;
  quit(): Promise<void>;
}

function startEditor(extra: string[] = []): Editor {
  if (!server || !ws) throw new Error("start the model server and the workspace first");
  const child: ChildProcess = spawn(
    process.execPath,
    [GANTRY_BIN, "--acp", "--model", "openai:test-model", "--base-url", server.baseUrl("openai"), ...extra],
    { env: { ...process.env, HOME: ws.home, OPENAI_API_KEY: "k" }, stdio: ["pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const updates: SessionNotification[] = [];
  const permissions: RequestPermissionRequest[] = [];
  const answers: Editor["answers"] = [];
  const reads: string[] = [];
  const writes: Editor["writes"] = [];
  const app = client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => void updates.push(params))
    .onRequest("fs/read_text_file", ({ params }) => {
      reads.push(params.path);
      return { content: "# Notes\nunsaved change in the editor\n" };
    })
    .onRequest("fs/write_text_file", ({ params }) => {
      writes.push({ path: params.path, content: params.content });
      // the editor puts the text in its buffer and saves it: a plain (non-atomic) write of its own
      writeFileSync(params.path, params.content);
      return {};
    })
    .onRequest("session/request_permission", ({ params }) => {
      permissions.push(params);
      const answer = answers.shift();
      return answer ? answer(params) : { outcome: { outcome: "selected", optionId: "once" } };
    });
  const stream = ndJsonStream(
    Writable.toWeb(child.stdin as Writable) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout as Readable) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  return {
    connection,
    updates,
    reads,
    writes,
    permissions,
    answers,
    stderr: () => stderr,
    async quit() {
      connection.close();
      child.stdin?.end();
      if (child.exitCode === null) await new Promise((resolve) => child.once("exit", resolve));
    },
  };
}

async function editorWith(
  turns: ScriptedTurn[],
  files: Record<string, string> = {},
  extra: string[] = [],
  readTextFile = false,
  writeTextFile = false,
) {
  ws = await createTempWorkspace(files);
  server = await startModelServer(turns);
  const editor = startEditor(extra);
  editors.push(editor);
  const init = await editor.connection.agent.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile, writeTextFile }, terminal: false },
  });
  return { editor, init };
}

const kinds = (editor: Editor) => editor.updates.map((note) => note.update.sessionUpdate);
const textOf = (editor: Editor, kind: string) =>
  editor.updates
    .map((note) => note.update)
    .filter((update) => update.sessionUpdate === kind)
    .map((update) => {
      const content = (update as { content?: { type?: string; text?: string } }).content;
      return content?.type === "text" ? (content.text ?? "") : "";
    })
    .join("");

describe("gantry --acp, driven by the ACP SDK's client", () => {
  it(
    "runs a whole prompt: message chunks, a tool call with its status, a permission request, a diff",
    E2E,
    async () => {
      const { editor, init } = await editorWith(
        [
          {
            text: "Looking.",
            toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.md" }, id: "read1" }],
          },
          {
            toolCalls: [
              {
                name: "replace_file_content",
                id: "edit1",
                args: {
                  TargetFile: "notes.md",
                  Instruction: "fix",
                  Description: "fix",
                  TargetContent: "ship it",
                  ReplacementContent: "shipped",
                  StartLine: 2,
                  EndLine: 2,
                  AllowMultiple: false,
                },
              },
            ],
          },
          { text: "Done." },
        ],
        { "notes.md": "# Notes\nship it\n" },
      );
      expect(init).toMatchObject({
        protocolVersion: 1,
        agentCapabilities: { loadSession: true },
        agentInfo: { name: "gantry" },
      });
      const created = await editor.connection.agent.request("session/new", {
        cwd: ws?.root ?? "",
        mcpServers: [],
      });
      expect(created.modes?.currentModeId).toBe("default");
      expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual([
        "default",
        "auto-edit",
        "yolo",
        "plan",
      ]);

      const response = await editor.connection.agent.request("session/prompt", {
        sessionId: created.sessionId,
        prompt: [{ type: "text", text: "Fix my notes" }],
      });
      expect(response.stopReason).toBe("end_turn");
      expect(textOf(editor, "agent_message_chunk")).toBe("Looking.Done.");

      // the read ran without asking; the edit asked first, naming the call
      expect(editor.permissions).toHaveLength(1);
      const asked = editor.permissions[0];
      expect(asked?.toolCall).toMatchObject({
        toolCallId: "edit1",
        kind: "edit",
        title: "replace_file_content notes.md",
      });
      expect(asked?.options.map((option) => option.kind)).toEqual([
        "allow_once",
        "allow_always",
        "allow_always",
        "reject_once",
      ]);

      const statuses = editor.updates.flatMap((note) =>
        (note.update.sessionUpdate === "tool_call" || note.update.sessionUpdate === "tool_call_update") &&
        note.update.status
          ? [`${note.update.toolCallId}:${note.update.status}`]
          : [],
      );
      expect(statuses).toEqual([
        "read1:pending",
        "read1:in_progress",
        "read1:completed",
        "edit1:pending",
        "edit1:in_progress",
        "edit1:completed",
      ]);
      const read = editor.updates.find((note) => note.update.sessionUpdate === "tool_call");
      expect(read?.update).toMatchObject({
        kind: "read",
        locations: [{ path: path.join(ws?.root ?? "", "notes.md") }],
      });
      const done = editor.updates.find(
        (note) =>
          note.update.sessionUpdate === "tool_call_update" &&
          note.update.toolCallId === "edit1" &&
          note.update.status === "completed",
      );
      const content = done?.update.sessionUpdate === "tool_call_update" ? (done.update.content ?? []) : [];
      expect(content[0]).toEqual({
        type: "diff",
        path: path.join(ws?.root ?? "", "notes.md"),
        oldText: "# Notes\nship it\n",
        newText: "# Notes\nshipped\n",
      });
      expect(readFileSync(path.join(ws?.root ?? "", "notes.md"), "utf8")).toBe("# Notes\nshipped\n");
      server?.assertDone();
    },
  );

  it("a rejected permission denies the call and the model hears why", E2E, async () => {
    const write = { TargetFile: "x.txt", Overwrite: false, CodeContent: "x", Description: "d" };
    const { editor } = await editorWith([
      { toolCalls: [{ name: "write_to_file", args: write }] },
      { text: "ok" },
    ]);
    editor.answers.push(() => ({ outcome: { outcome: "selected", optionId: "deny" } }));
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    expect(existsSync(path.join(ws?.root ?? "", "x.txt"))).toBe(false);
    expect(server?.requests[1]?.text).toContain("the user said no");
  });

  it("cancels a running prompt with session/cancel", E2E, async () => {
    const { editor } = await editorWith([{ text: "Thinking for a long", stall: true }]);
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    const prompt = editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    while (!kinds(editor).includes("agent_message_chunk"))
      await new Promise((resolve) => setTimeout(resolve, 20));
    await editor.connection.agent.notify("session/cancel", { sessionId });
    expect((await prompt).stopReason).toBe("cancelled");
  });

  it("switches the approval mode with session/set_mode", E2E, async () => {
    const write = { TargetFile: "m.txt", Overwrite: false, CodeContent: "m\n", Description: "d" };
    const { editor } = await editorWith([
      { toolCalls: [{ name: "write_to_file", args: write }] },
      { text: "ok" },
    ]);
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    await editor.connection.agent.request("session/set_mode", { sessionId, modeId: "auto-edit" });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "write" }],
    });
    expect(editor.permissions).toEqual([]);
    expect(kinds(editor)).toContain("current_mode_update");
    expect(readFileSync(path.join(ws?.root ?? "", "m.txt"), "utf8")).toBe("m\n");
    await expect(
      editor.connection.agent.request("session/set_mode", { sessionId, modeId: "reckless" }),
    ).rejects.toThrow(/unknown mode "reckless"/);
  });

  it("leaves yolo out of the modes and refuses it when a settings file switched it off", E2E, async () => {
    const { editor } = await editorWith([], {
      ".claude/settings.json": JSON.stringify({ permissions: { disableBypassPermissionsMode: "disable" } }),
    });
    const created = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(["default", "auto-edit", "plan"]);
    await expect(
      editor.connection.agent.request("session/set_mode", { sessionId: created.sessionId, modeId: "yolo" }),
    ).rejects.toThrow(
      /yolo is switched off by permissions\.disableBypassPermissionsMode in \.claude\/settings\.json/,
    );
    expect(kinds(editor)).not.toContain("current_mode_update");
  });

  it("loads a saved session: replays it, then continues the same conversation", E2E, async () => {
    const { editor } = await editorWith([
      { text: "Noted: teapot." },
      { text: "It was teapot.", expect: (request) => expect(request.text).toContain("remember teapot") },
    ]);
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "remember teapot" }],
    });
    await editor.quit();

    const second = startEditor();
    editors.push(second);
    await second.connection.agent.request("initialize", { protocolVersion: 1 });
    await second.connection.agent.request("session/load", { sessionId, cwd: ws?.root ?? "", mcpServers: [] });
    expect(textOf(second, "user_message_chunk")).toBe("remember teapot");
    expect(textOf(second, "agent_message_chunk")).toBe("Noted: teapot.");
    second.updates.length = 0;
    const again = await second.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "which word?" }],
    });
    expect(again.stopReason).toBe("end_turn");
    expect(textOf(second, "agent_message_chunk")).toBe("It was teapot.");
    server?.assertDone();
  });

  it("refuses an unknown session and a relative cwd with a clear error", E2E, async () => {
    const { editor } = await editorWith([]);
    await expect(
      editor.connection.agent.request("session/prompt", {
        sessionId: "nope",
        prompt: [{ type: "text", text: "x" }],
      }),
    ).rejects.toThrow(/nope/);
    await expect(
      editor.connection.agent.request("session/new", { cwd: "relative/dir", mcpServers: [] }),
    ).rejects.toThrow(/cwd must be an absolute path/);
  });

  it("streams the model's reasoning as thought chunks", E2E, async () => {
    // OpenAI-compatible servers (llama.cpp, vLLM, ...) send reasoning_content
    const { editor } = await editorWith([{ reasoning: "Hmm, let me see.", text: "42" }], {}, [
      "--model",
      "openai-compatible:local",
    ]);
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "?" }],
    });
    expect(textOf(editor, "agent_thought_chunk")).toBe("Hmm, let me see.");
  });

  it(
    "reads files through the editor when it offers fs/read_text_file, so unsaved changes count",
    E2E,
    async () => {
      const { editor } = await editorWith(
        [
          { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.md" } }] },
          {
            toolCalls: [
              {
                name: "replace_file_content",
                args: {
                  TargetFile: "notes.md",
                  Instruction: "i",
                  Description: "d",
                  TargetContent: "saved",
                  ReplacementContent: "saved twice",
                  StartLine: 2,
                  EndLine: 2,
                  AllowMultiple: false,
                },
              },
            ],
          },
          { text: "seen" },
        ],
        { "notes.md": "# Notes\nsaved\n" },
        [],
        true,
      );
      const { sessionId } = await editor.connection.agent.request("session/new", {
        cwd: ws?.root ?? "",
        mcpServers: [],
      });
      await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "read" }],
      });
      expect(editor.reads).toEqual([path.join(ws?.root ?? "", "notes.md")]);
      expect(server?.requests[1]?.text).toContain("unsaved change in the editor");
      // the edit applies to the file on disk, which the read vouched for (no stale_file)
      expect(readFileSync(path.join(ws?.root ?? "", "notes.md"), "utf8")).toBe("# Notes\nsaved twice\n");
    },
  );

  it(
    "hands each edit's new text to the editor when it offers fs/write_text_file, after writing it to disk",
    E2E,
    async () => {
      const edit = (from: string, to: string) => ({
        name: "replace_file_content",
        args: {
          TargetFile: "notes.md",
          Instruction: "i",
          Description: "d",
          TargetContent: from,
          ReplacementContent: to,
          StartLine: 2,
          EndLine: 2,
          AllowMultiple: false,
        },
      });
      const { editor } = await editorWith(
        [
          { toolCalls: [{ name: "view_file", args: { AbsolutePath: "notes.md" } }] },
          { toolCalls: [edit("saved", "saved twice")] },
          // the editor saved the file again after the first edit: the second edit still applies
          {
            toolCalls: [edit("saved twice", "saved thrice")],
            expect: (request) => expect(request.text).not.toContain("stale"),
          },
          {
            toolCalls: [
              {
                name: "write_to_file",
                args: { TargetFile: "new.md", CodeContent: "made\n", Overwrite: false, Description: "d" },
              },
            ],
          },
          { text: "edited" },
        ],
        { "notes.md": "# Notes\nsaved\n" },
        ["--approval-mode", "yolo"],
        false,
        true,
      );
      const { sessionId } = await editor.connection.agent.request("session/new", {
        cwd: ws?.root ?? "",
        mcpServers: [],
      });
      await editor.connection.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "edit" }],
      });
      server?.assertDone();
      const root = ws?.root ?? "";
      expect(editor.writes).toEqual([
        { path: path.join(root, "notes.md"), content: "# Notes\nsaved twice\n" },
        { path: path.join(root, "notes.md"), content: "# Notes\nsaved thrice\n" },
        { path: path.join(root, "new.md"), content: "made\n" },
      ]);
      expect(readFileSync(path.join(root, "notes.md"), "utf8")).toBe("# Notes\nsaved thrice\n");
      // reads stay on disk: the editor offered no fs/read_text_file
      expect(editor.reads).toEqual([]);
    },
  );

  it("never asks the editor for a file the workspace guard refuses", E2E, async () => {
    const { editor } = await editorWith(
      [{ toolCalls: [{ name: "view_file", args: { AbsolutePath: ".env" } }] }, { text: "refused" }],
      { ".env": "SECRET=1\n" },
      [],
      true,
    );
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "read" }],
    });
    expect(editor.reads).toEqual([]);
    expect(server?.requests[1]?.text).toContain("is a secret file");
  });

  it("shows the model's plan (update_plan) as the session's plan", E2E, async () => {
    const plan = [
      { step: "read the notes", status: "completed" },
      { step: "fix them", status: "in_progress" },
    ];
    const { editor } = await editorWith([
      { toolCalls: [{ name: "update_plan", args: { plan } }] },
      { text: "ok" },
    ]);
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [],
    });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "plan" }],
    });
    const shown = editor.updates.find((note) => note.update.sessionUpdate === "plan");
    expect(shown?.update).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "read the notes", status: "completed", priority: "medium" },
        { content: "fix them", status: "in_progress", priority: "medium" },
      ],
    });
  });

  it("starts the MCP servers session/new names and runs their tools", { timeout: 120_000 }, async () => {
    const { editor } = await editorWith(
      [
        { toolCalls: [{ name: "mcp__everything__echo", args: { message: "via acp" } }] },
        { text: "ok", expect: (request) => expect(request.text).toContain("via acp") },
      ],
      {},
      ["--approval-mode", "yolo"],
    );
    const stdio = everythingStdio();
    const { sessionId } = await editor.connection.agent.request("session/new", {
      cwd: ws?.root ?? "",
      mcpServers: [{ name: "everything", command: stdio.command, args: stdio.args, env: [] }],
    });
    await editor.connection.agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "echo" }],
    });
    server?.assertDone();
  });
});
