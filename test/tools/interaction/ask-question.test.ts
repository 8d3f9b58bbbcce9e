import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { createCallbackAsker, createHeadlessAsker, type Question } from "../../../src/policy/asker.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

const questions = {
  questions: [
    { question: "Which package manager?", options: ["npm", "pnpm"], is_multi_select: false },
    { question: "Which checks should CI run?", options: ["lint", "test", "bench"], is_multi_select: true },
  ],
};

describe("ask_question", () => {
  it("asks through the session's asker and returns the answers", async () => {
    ws = await createTempWorkspace({});
    const seen: Question[][] = [];
    const asker = createCallbackAsker({
      onPermission: () => ({ choice: "deny" }),
      onQuestions: (asked) => {
        seen.push(asked);
        return [["pnpm"], ["lint", "test"]];
      },
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "plan", asker });
    const result = await session.pipeline.run({ name: "ask_question", args: questions });
    expect(result).toMatchObject({
      error: false,
      text: "Q: Which package manager?\nA: pnpm\n\nQ: Which checks should CI run?\nA: lint, test",
      metadata: { answers: [{ answer: ["pnpm"] }, { answer: ["lint", "test"] }] },
    });
    expect(seen[0]?.[1]).toEqual({
      question: "Which checks should CI run?",
      options: ["lint", "test", "bench"],
      multiSelect: true,
    });
  });

  it("headless without an answer provider is an error the model can act on", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({ workspace: ws.root, home: ws.home, approvalMode: "default" });
    const result = await session.pipeline.run({ name: "ask_question", args: questions });
    expect(result).toMatchObject({ error: true, errorCode: "unavailable" });
    expect(result.text).toBe(
      "The questions could not be asked: nobody can answer questions in this headless run. Choose the most reasonable option yourself, state the assumption in your reply, and go on.",
    );
  });

  it("headless with an answer provider answers", async () => {
    ws = await createTempWorkspace({});
    const asker = createHeadlessAsker({ answerQuestions: (asked) => asked.map((q) => [q.options[0] ?? ""]) });
    session = createGantrySession({ workspace: ws.root, home: ws.home, asker });
    const result = await session.pipeline.run({ name: "ask_question", args: questions });
    expect(result.text).toBe("Q: Which package manager?\nA: npm\n\nQ: Which checks should CI run?\nA: lint");
  });

  it("names the bad field when a question is malformed", async () => {
    ws = await createTempWorkspace({});
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    const result = await session.pipeline.run({
      name: "ask_question",
      args: { questions: [{ question: "x" }] },
    });
    expect(result.errorCode).toBe("invalid_arguments");
    expect(result.text).toContain("options");
  });

  it("a subagent cannot ask the user", async () => {
    ws = await createTempWorkspace({});
    const asker = createCallbackAsker({
      onPermission: () => ({ choice: "once" }),
      onQuestions: () => [["npm"]],
    });
    session = createGantrySession({ workspace: ws.root, home: ws.home, asker });
    const result = await session.pipeline.run(
      { name: "ask_question", args: questions },
      { agentId: "worker-1" },
    );
    expect(result).toMatchObject({ error: true, errorCode: "unavailable" });
    expect(result.text).toContain("report the open question to your parent agent");
    const permission = await session.pipeline.run(
      { name: "ask_permission", args: { Action: "Bash", Target: "make", Reason: "build" } },
      { agentId: "worker-1" },
    );
    expect(permission.text).toContain("A subagent cannot ask the user for permission");
  });
});
