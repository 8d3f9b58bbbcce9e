import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createTranscriptViews, viewFileOf } from "../../src/hooks/transcripts/views.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

const line = (value: unknown) => `${JSON.stringify(value)}\n`;
const header = line({
  type: "session",
  version: 1,
  id: "s1",
  workspace: "/w",
  model: "openai:m1",
  createdAt: "t0",
});
const prompt = (text: string) => line({ type: "message", message: { role: "user", text }, at: "t1" });

describe("transcript views", () => {
  it("are brought up to date from complete lines only: a half-written line waits for its end", async () => {
    ws = await createTempWorkspace();
    const source = path.join(ws.home, "s1.jsonl");
    writeFileSync(source, header + prompt("first"));
    const log: string[] = [];
    const views = createTranscriptViews({ sessionId: () => "s1", cwd: ws.root, log: (l) => log.push(l) });
    const file = views.pathFor("claude", source);
    expect(file).toBe(viewFileOf(source, "claude"));
    const texts = () =>
      readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).message.content);
    expect(texts()).toEqual(["first"]);
    const second = prompt("second");
    appendFileSync(source, second.slice(0, 20));
    views.pathFor("claude", source);
    expect(texts()).toEqual(["first"]);
    appendFileSync(source, `${second.slice(20)}{"damaged\n${line({ type: "turn_start", turn: 1 })}`);
    views.pathFor("claude", source);
    expect(texts()).toEqual(["first", "second"]);
    // subagents' events in the session file are not the main conversation's
    appendFileSync(
      source,
      line({ type: "message", agentId: "a1", message: { role: "user", text: "x" }, at: "t" }),
    );
    views.pathFor("claude", source);
    expect(texts()).toEqual(["first", "second"]);
    expect(log).toEqual([]);
  });

  it("say when one cannot be written, and give an empty path rather than another format's file", async () => {
    ws = await createTempWorkspace();
    const source = path.join(ws.home, "s1.jsonl");
    writeFileSync(source, header);
    // the views' folder cannot be made: a file holds its name
    writeFileSync(`${source.slice(0, -".jsonl".length)}.views`, "");
    const log: string[] = [];
    const views = createTranscriptViews({ sessionId: () => "s1", cwd: ws.root, log: (l) => log.push(l) });
    expect(views.pathFor("gemini", source)).toBe("");
    expect(views.pathFor("gemini", source)).toBe("");
    expect(log).toEqual([expect.stringContaining("cannot write the Gemini CLI view of the transcript")]);
    expect(views.pathFor("claude", "")).toBe("");
  });
});
