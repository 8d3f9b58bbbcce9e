import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { Asker, Question } from "../../src/policy/asker.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { everythingStdio } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

const TRIGGER = "mcp__everything__trigger-elicitation-request";

/** A user who answers each question by the field's exact title (followed by " (" in the question), or walks away. */
function userAnswering(answers: Record<string, string[]> | "walks away", asked: Question[]): Asker {
  return {
    kind: "callback",
    askPermission: async () => ({ choice: "deny" }),
    async askQuestions(questions) {
      asked.push(...questions);
      if (answers === "walks away") return { answered: false, reason: "the user closed the dialog" };
      return {
        answered: true,
        answers: questions.map((q) => {
          // the longest title the question names ("Titled …" is inside "Legacy Titled …")
          const title = Object.keys(answers)
            .filter((key) => q.question.includes(`${key} (`))
            .sort((a, b) => b.length - a.length)[0];
          return title ? (answers[title] as string[]) : [];
        }),
      };
    },
  };
}

async function open(asker?: Asker) {
  ws = await createTempWorkspace();
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    mcpServers: { everything: everythingStdio() },
    approvalMode: "yolo",
    ...(asker ? { asker } : {}),
  });
  expect(await session.mcp.startMain()).toEqual([]);
  return session;
}

describe("MCP elicitation: a server's form goes to the user as the session's questions", () => {
  it("fills in the form field by field, typed as the schema says, and skips what the user leaves out", async () => {
    const asked: Question[] = [];
    const s = await open(
      userAnswering(
        {
          String: ["Ada Lovelace"],
          Boolean: ["yes"],
          Integer: ["7"],
          "Number in range 1-1000": ["2.5"],
          "Untitled Single Select Enum": ["Joey"],
          "Untitled Multiple Select Enum": ["Piano", "Drums"],
          "Titled Single Select Enum": ["Wonder Woman"],
          "Legacy Titled Single Select Enum": ["Dogs"],
        },
        asked,
      ),
    );
    const result = await s.pipeline.run({ name: TRIGGER, args: {} });
    expect(result.error).toBe(false);
    expect(result.text).toContain("User provided the requested information");
    expect(result.text).toContain("- Name: Ada Lovelace");
    expect(result.text).toContain("- Agreed to terms: true");
    expect(result.text).toContain("- Favorite Integer: 7");
    expect(result.text).toContain("- Favorite Number: 2.5");
    const raw = JSON.parse(result.text.slice(result.text.indexOf("{"), result.text.lastIndexOf("}") + 1));
    expect(raw.content).toMatchObject({
      untitledSingleSelectEnum: "Joey",
      untitledMultipleSelectEnum: ["Piano", "Drums"],
      titledSingleSelectEnum: "hero-3",
      legacyTitledEnum: "pet-2",
    });
    // fields the user skipped are left out, not sent empty
    expect(raw.content).not.toHaveProperty("email");
    // the first question names the server and its message; choices are offered as options
    expect(asked[0]?.question).toContain('The MCP server "everything" asks: Please provide inputs');
    expect(asked.find((q) => q.question.includes("Untitled Multiple Select Enum"))).toMatchObject({
      multiSelect: true,
      options: ["Guitar", "Piano", "Violin", "Drums", "Bass"],
    });
  }, 60_000);

  it("asks once more when an answer does not fit the field, and cancels the form after a second miss", async () => {
    const asked: Question[] = [];
    const s = await open(userAnswering({ String: ["Ada"], Integer: ["a thousand"] }, asked));
    const result = await s.pipeline.run({ name: TRIGGER, args: {} });
    expect(result.text).toContain("User cancelled");
    const integerQuestions = asked.filter((q) => q.question.includes("Integer"));
    expect(integerQuestions).toHaveLength(2);
    expect(integerQuestions[1]?.question).toContain('"a thousand" is not a number');
  }, 60_000);

  it("a user who closes the dialog cancels the form", async () => {
    const s = await open(userAnswering("walks away", []));
    const result = await s.pipeline.run({ name: TRIGGER, args: {} });
    expect(result.text).toContain("User cancelled the elicitation dialog");
  }, 60_000);

  it("is not offered where nobody can answer (a headless session): the server leaves its form tool out", async () => {
    const s = await open();
    expect(s.registry.lookup(TRIGGER)).toBeUndefined();
    expect(s.registry.lookup("mcp__everything__echo")).toBeDefined();
  }, 60_000);
});
