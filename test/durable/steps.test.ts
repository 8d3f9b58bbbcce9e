import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AskChannel } from "../../src/durable/asks.js";
import { createDurableAsker } from "../../src/durable/asks.js";
import type { Journal } from "../../src/durable/journal.js";
import type { WorkspaceSync } from "../../src/durable/session-sync.js";
import { journaledPipeline } from "../../src/durable/steps.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

/** A journal in memory: a name recorded before is replayed, as Restate replays a journal on another worker. */
function memoryJournal(recorded = new Map<string, unknown>()): Journal & { recorded: Map<string, unknown> } {
  return {
    recorded,
    async step(name, action) {
      if (recorded.has(name)) return recorded.get(name) as never;
      const value = JSON.parse(JSON.stringify(await action()));
      recorded.set(name, value);
      return value;
    },
  };
}

const noSync: WorkspaceSync = {
  prepare: async () => undefined,
  snapshot: async () => ({ grants: [], reads: [] }),
  note: () => undefined,
  current: () => ({ grants: [], reads: [] }),
  bringBack: async () => undefined,
};
const noAsks: AskChannel = { ask: async () => ({ kind: "permission", choice: "deny", message: "no" }) };

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

async function open(approvalMode: "yolo" | "default" = "yolo") {
  ws = await createTempWorkspace({ "notes.md": "hello\n" });
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    approvalMode,
    asker: createDurableAsker(),
  });
  return { ws, session };
}

const appendCall = (file: string) => ({
  name: "run_command",
  callId: "c1",
  args: { CommandLine: `echo ran >> ${file}`, Cwd: ".", WaitMsBeforeAsync: 10_000 },
});

describe("journaled tool calls", () => {
  it("replays a finished call from the journal without running it again", async () => {
    const { ws, session } = await open();
    const log = path.join(ws.parent, "effects.log");
    const journal = memoryJournal();
    const deps = { pipeline: session.pipeline, journal, asks: noAsks, workspace: noSync, workerId: "w1" };
    const first = await journaledPipeline(deps).run(appendCall(log));
    const replayed = await journaledPipeline({ ...deps, workerId: "w2" }).run(appendCall(log));
    expect(replayed).toEqual(first);
    expect(readFileSync(log, "utf8")).toBe("ran\n");
  });

  it("does not run again a side-effecting call that was in flight when its worker stopped, and says so", async () => {
    const { ws, session } = await open();
    const log = path.join(ws.parent, "effects.log");
    // the journal a dead worker left: the intent recorded, no result
    const journal = memoryJournal(new Map([["intent run_command c1#0", true]]));
    const deps = { pipeline: session.pipeline, journal, asks: noAsks, workspace: noSync, workerId: "w2" };
    const result = await journaledPipeline(deps).run(appendCall(log));
    expect(result).toMatchObject({ error: true, errorCode: "interrupted" });
    expect(result.text).toContain("may or may not have finished");
    expect(existsSync(log)).toBe(false);
  });

  it("runs a read-only call again after an interruption", async () => {
    const { session } = await open();
    const journal = memoryJournal(new Map([["intent view_file c2#0", true]]));
    const deps = { pipeline: session.pipeline, journal, asks: noAsks, workspace: noSync, workerId: "w2" };
    const result = await journaledPipeline(deps).run({
      name: "view_file",
      callId: "c2",
      args: { AbsolutePath: "notes.md" },
    });
    expect(result.error).toBe(false);
    expect(result.text).toContain("hello");
  });

  it("records an ask instead of denying it, and runs the call through the whole pipeline with the answer", async () => {
    const { ws, session } = await open("default");
    const log = path.join(ws.parent, "effects.log");
    const asked: string[] = [];
    const asks: AskChannel = {
      async ask(pending) {
        asked.push(pending.kind === "permission" ? pending.request.tool : "questions");
        expect(existsSync(log)).toBe(false);
        return { kind: "permission", choice: "once" };
      },
    };
    const journal = memoryJournal();
    const deps = { pipeline: session.pipeline, journal, asks, workspace: noSync, workerId: "w1" };
    const result = await journaledPipeline(deps).run(appendCall(log));
    expect(asked).toEqual(["run_command"]);
    expect(result.error).toBe(false);
    expect(readFileSync(log, "utf8")).toBe("ran\n");
    expect([...journal.recorded.keys()]).toEqual([
      "intent run_command c1#0",
      "call run_command c1#0",
      "intent run_command c1#1",
      "call run_command c1#1",
    ]);
  });
});
