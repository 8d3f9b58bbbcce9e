import { readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { createSessionEvents } from "../../src/cli/session-events.js";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { createCallbackAsker } from "../../src/policy/asker.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

const record = `cat >> "$GANTRY_PROJECT_DIR/notified.jsonl"; echo >> "$GANTRY_PROJECT_DIR/notified.jsonl"`;
const notified = async () =>
  (await readFile(`${ws.root}/notified.jsonl`, "utf8").catch(() => ""))
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const FILES = {
  claude: {
    ".claude/settings.json": JSON.stringify({
      hooks: { Notification: [{ matcher: "", hooks: [{ type: "command", command: record }] }] },
    }),
  },
  gemini: {
    ".gemini/settings.json": JSON.stringify({
      hooks: { Notification: [{ hooks: [{ type: "command", command: record }] }] },
    }),
  },
  native: {
    ".agents/hooks.json": JSON.stringify({
      n: { notification: [{ matcher: "", hooks: [{ type: "command", command: record }] }] },
    }),
  },
};

const command = { name: "run_command", args: { CommandLine: "echo hi", Cwd: ".", WaitMsBeforeAsync: 5000 } };

describe("Notification hooks hear that a permission question waits for a person", () => {
  it.each([
    [
      "claude",
      { notification_type: "permission_prompt", message: "Gantry needs your permission to use run_command" },
    ],
    ["gemini", { notification_type: "ToolPermission", details: { tool_name: "run_command" } }],
    ["native", { notification_type: "permission_prompt" }],
  ] as const)("%s", async (dialect, expected) => {
    ws = await createTempWorkspace(FILES[dialect]);
    const asker = createCallbackAsker({ onPermission: () => ({ choice: "once" }) });
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      approvalMode: "default",
      asker,
    });
    expect((await session.pipeline.run(command)).error).toBe(false);
    await session.dispose();
    expect(await notified()).toEqual([expect.objectContaining(expected)]);
  });

  it("not when nobody could be asked (headless): the question is denied at once", async () => {
    ws = await createTempWorkspace(FILES.claude);
    session = createGantrySession({
      workspace: ws.root,
      home: ws.home,
      trust: true,
      approvalMode: "default",
    });
    expect((await session.pipeline.run(command)).errorCode).toBe("denied");
    await session.dispose();
    expect(await notified()).toEqual([]);
  });
});

/** The session events of an interactive session whose prompt counts as idle after 50 ms. */
async function idleSessionEvents(files: Record<string, string>) {
  ws = await createTempWorkspace(files);
  session = createGantrySession({ workspace: ws.root, home: ws.home, trust: true });
  return createSessionEvents({
    hooks: session.hooks,
    model: () => "m",
    interactive: true,
    idleSeconds: 0.05,
  });
}

/** Lets an idle timer fire and its hooks finish. */
async function idleWait() {
  await sleep(300);
  await session?.hooks.settled();
}

describe("Notification hooks hear that the interactive prompt is idle", () => {
  it("after idleNotificationSeconds at the prompt, once; not when the next prompt came first", async () => {
    const events = await idleSessionEvents(FILES.claude);
    events.idle();
    await idleWait();
    expect(await notified()).toEqual([
      expect.objectContaining({
        notification_type: "idle_prompt",
        message: "Gantry is waiting for your input",
      }),
    ]);
    events.idle();
    await events.admit([{ role: "user", text: "next" }], new AbortController().signal);
    await idleWait();
    expect(await notified()).toHaveLength(1);
  });

  it("Gemini CLI has no idle notification: its hooks do not hear one", async () => {
    const events = await idleSessionEvents(FILES.gemini);
    events.idle();
    await idleWait();
    expect(await notified()).toEqual([]);
  });
});
