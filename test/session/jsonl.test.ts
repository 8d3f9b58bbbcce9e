import { appendFileSync, readFileSync, statSync, utimesSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import {
  appendSessionWriter,
  createSessionWriter,
  findSessionFile,
  latestSessionFile,
  loadSession,
  openSession,
  sessionsDir,
} from "../../src/session/jsonl.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const message = (m: Extract<AgentEvent, { type: "message" }>["message"]): AgentEvent => ({
  type: "message",
  agentId: "main",
  message: m,
});

describe("JSONL sessions", () => {
  it("writes one line per event as it happens, under the home's .gantry/sessions, skipping stream deltas", async () => {
    ws = await createTempWorkspace();
    const dir = sessionsDir(ws.home, ws.root);
    expect(dir.startsWith(path.join(ws.home, ".gantry", "sessions"))).toBe(true);
    const writer = createSessionWriter(dir, { workspace: ws.root, model: "openai:x" });
    writer.record(message({ role: "user", text: "hello" }));
    // readable before close: a crash loses at most the line being written
    expect(readFileSync(writer.file, "utf8").trim().split("\n")).toHaveLength(2);
    writer.record({ type: "text_delta", agentId: "main", turn: 1, text: "h" });
    writer.record(message({ role: "assistant", text: "hi", toolCalls: [] }));
    writer.close();
    expect(statSync(writer.file).mode & 0o777).toBe(0o600);
    const loaded = loadSession(writer.file);
    expect(loaded.header).toMatchObject({
      type: "session",
      id: writer.id,
      workspace: ws.root,
      model: "openai:x",
    });
    expect(loaded.conversation.messages).toEqual([
      { role: "user", text: "hello" },
      { role: "assistant", text: "hi", toolCalls: [] },
    ]);
    expect(loaded.problems).toEqual([]);
  });

  it("reports and skips a corrupted line instead of failing", async () => {
    ws = await createTempWorkspace();
    const writer = createSessionWriter(sessionsDir(ws.home, ws.root), { workspace: ws.root });
    writer.record(message({ role: "user", text: "one" }));
    appendFileSync(writer.file, '{"type":"message","message":{"role":"user","te\n');
    appendFileSync(writer.file, "[1,2]\n");
    writer.record(message({ role: "assistant", text: "two", toolCalls: [] }));
    writer.close();
    // a torn final line, as a crash mid-write leaves it
    appendFileSync(writer.file, '{"type":"message","mess');
    const loaded = loadSession(writer.file);
    expect(loaded.conversation.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    expect(loaded.problems.map((p) => p.line)).toEqual([3, 4, 6]);
    expect(loaded.problems[0]?.message).toContain("not JSON");
  });

  it("resuming after a crash loses only the torn line, not the first new event", async () => {
    ws = await createTempWorkspace();
    const writer = createSessionWriter(sessionsDir(ws.home, ws.root), { workspace: ws.root });
    writer.record(message({ role: "user", text: "before the crash" }));
    writer.close();
    appendFileSync(writer.file, '{"type":"message","mess');
    const resumed = appendSessionWriter(writer.file, writer.id);
    resumed.record(message({ role: "user", text: "after the resume" }));
    resumed.close();
    const loaded = loadSession(writer.file);
    expect(loaded.conversation.messages).toEqual([
      { role: "user", text: "before the crash" },
      { role: "user", text: "after the resume" },
    ]);
    expect(loaded.problems.map((p) => p.line)).toEqual([3]);
  });

  it("replays compaction and leaves subagent events out of the main conversation", async () => {
    ws = await createTempWorkspace();
    const writer = createSessionWriter(sessionsDir(ws.home, ws.root), { workspace: ws.root });
    writer.record(message({ role: "user", text: "a" }));
    writer.record(message({ role: "assistant", text: "b", toolCalls: [] }));
    writer.record(message({ role: "user", text: "c" }));
    writer.record({ type: "compaction", agentId: "main", summary: "S", replacedCount: 2, tokensBefore: 99 });
    writer.record({ type: "message", agentId: "sub-1", message: { role: "user", text: "sub prompt" } });
    writer.close();
    expect(loadSession(writer.file).conversation.messages).toEqual([
      { role: "summary", text: "S" },
      { role: "user", text: "c" },
    ]);
  });

  it("answers a tool call the crash left without a result when the session is loaded", async () => {
    ws = await createTempWorkspace();
    const writer = createSessionWriter(sessionsDir(ws.home, ws.root), { workspace: ws.root });
    writer.record(message({ role: "user", text: "run it" }));
    writer.record(
      message({ role: "assistant", text: "", toolCalls: [{ callId: "c1", name: "run_command", args: {} }] }),
    );
    writer.close();
    const messages = loadSession(writer.file).conversation.messages;
    expect(messages.at(-1)).toMatchObject({
      role: "tool",
      results: [{ callId: "c1", error: true, errorCode: "aborted" }],
    });
  });

  it("finds sessions by id or unique prefix, the latest for --continue, and appends on resume", async () => {
    ws = await createTempWorkspace();
    const dir = sessionsDir(ws.home, ws.root);
    expect(latestSessionFile(dir)).toBeUndefined();
    const first = createSessionWriter(dir, { workspace: ws.root });
    first.close();
    const second = createSessionWriter(dir, { workspace: ws.root });
    second.close();
    const past = new Date(Date.now() - 60_000);
    utimesSync(first.file, past, past);
    expect(latestSessionFile(dir)).toBe(second.file);
    expect(findSessionFile(dir, first.id)).toEqual({ ok: true, file: first.file });
    expect(findSessionFile(dir, "../../etc/passwd")).toMatchObject({ ok: false });
    expect(findSessionFile(dir, "nope")).toMatchObject({
      ok: false,
      message: expect.stringContaining("no session"),
    });
    const resumed = appendSessionWriter(first.file, first.id);
    resumed.record(message({ role: "user", text: "again" }));
    resumed.close();
    expect(loadSession(first.file).conversation.messages).toEqual([{ role: "user", text: "again" }]);
    expect(latestSessionFile(dir)).toBe(first.file);
  });

  it("keeps each workspace's sessions apart", async () => {
    ws = await createTempWorkspace();
    expect(sessionsDir(ws.home, "/a/project")).not.toBe(sessionsDir(ws.home, "/b/project"));
  });
});

describe("openSession", () => {
  it("starts a new session, continues the latest, resumes by id, and says when there is nothing to continue", async () => {
    ws = await createTempWorkspace();
    const dir = sessionsDir(ws.home, ws.root);
    expect(openSession({ dir, workspace: ws.root, continueLatest: true })).toMatchObject({
      ok: false,
      message: expect.stringContaining("no earlier session"),
    });
    const fresh = openSession({ dir, workspace: ws.root, model: "openai:x" });
    if (!fresh.ok) throw new Error(fresh.message);
    fresh.writer.record(message({ role: "user", text: "first" }));
    fresh.writer.close();
    const continued = openSession({ dir, workspace: ws.root, continueLatest: true });
    if (!continued.ok) throw new Error(continued.message);
    expect(continued.writer.id).toBe(fresh.writer.id);
    expect(continued.conversation.messages).toEqual([{ role: "user", text: "first" }]);
    continued.writer.close();
    const resumed = openSession({ dir, workspace: ws.root, resume: fresh.writer.id.slice(0, 10) });
    expect(resumed).toMatchObject({ ok: true, file: fresh.writer.file });
    if (resumed.ok) resumed.writer.close();
  });
});
