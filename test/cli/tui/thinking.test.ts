import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../../src/agent/events.js";
import { createRenderer } from "../../../src/cli/tui/renderer.js";
import { createTheme } from "../../../src/cli/tui/style.js";
import { createTranscript } from "../../../src/cli/tui/transcript.js";

const DIM = "\u001b[2m";
const main = (event: Record<string, unknown>) => ({ agentId: "main", turn: 1, ...event }) as AgentEvent;
const events: AgentEvent[] = [
  main({ type: "thinking", text: "The user wants " }),
  main({ type: "thinking", text: "a number.\nSo: 42." }),
  main({ type: "text_delta", text: "It is 42." }),
  main({
    type: "done",
    reason: "max_tokens",
    turns: 1,
    text: "It is 42.",
    usage: { inputTokens: 1, outputTokens: 1 },
  }),
];

describe("the model's reasoning in the terminal", () => {
  it("the terminal UI shows it dimmed, line by line, before the answer; a cut answer says so", () => {
    const transcript = createTranscript({
      theme: createTheme(true),
      width: () => 80,
      workspaceRoot: "/w",
      groupOf: () => undefined,
    });
    for (const event of events) transcript.event(event);
    const lines = transcript.takeCommits();
    const thought = lines.filter((line) => line.includes(DIM) && /wants|42\./.test(line));
    expect(thought.map((line) => line.replace(/\u001b\[[0-9;]*m/g, "").trim())).toEqual([
      "The user wants a number.",
      "So: 42.",
    ]);
    const answerAt = lines.findIndex((line) => line.includes("It is 42."));
    expect(answerAt).toBeGreaterThan(lines.indexOf(thought[1] as string));
    expect(lines.at(-1)).toContain("(the answer was cut off by the model's output limit)");
  });

  it("plain lines show it dimmed too, the answer on a line of its own", () => {
    let out = "";
    const renderer = createRenderer({
      write: (text) => void (out += text),
      color: true,
      workspaceRoot: "/w",
      groupOf: () => undefined,
    });
    for (const event of events) renderer.event(event);
    expect(out).toContain(`${DIM}The user wants `);
    expect(out).toMatch(/So: 42\.\u001b\[22m\nIt is 42\./);
    expect(out).toContain("(the answer was cut off by the model's output limit)");
  });
});
