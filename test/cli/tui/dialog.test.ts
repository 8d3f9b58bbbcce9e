import { describe, expect, it } from "vitest";
import {
  permissionAnswer,
  permissionDialog,
  questionAnswer,
  questionDialog,
} from "../../../src/cli/tui/ask-dialogs.js";
import { type Dialog, dialogKey, drawDialog } from "../../../src/cli/tui/dialog.js";
import { createKeyParser, type Key } from "../../../src/cli/tui/keys.js";
import { createTheme } from "../../../src/cli/tui/style.js";
import type { PermissionRequest } from "../../../src/policy/asker.js";

const theme = createTheme(false);
const request: PermissionRequest = {
  tool: "run_command",
  args: { CommandLine: "npm test", Cwd: "/w" },
  subjects: ["npm test"],
  decision: { verdict: "ask", source: "approval mode default", reason: 'no allow rule matches "npm test"' },
  forced: false,
  grantRules: ["Bash(npm test)"],
};
const dialogFor = (req: PermissionRequest) =>
  permissionDialog(req, {
    theme,
    workspaceRoot: "/w",
    maxDiffLines: 10,
    alwaysSavedTo: "~/.agents/folder-permissions.json",
  });

/** Feeds raw terminal input to a dialog until it settles. */
function press(dialog: Dialog, input: string) {
  let current = dialog;
  for (const key of createKeyParser().feed(input) as Key[]) {
    const outcome = dialogKey(current, key);
    if (outcome.kind !== "open") return outcome;
    current = outcome.dialog;
  }
  return { kind: "open" as const, dialog: current };
}

describe("the approval dialog", () => {
  it("says what the call does in one line and offers the choices", () => {
    const lines = drawDialog(dialogFor(request), 100, theme).lines;
    expect(lines).toContain(" Run a command: npm test");
    expect(lines.join("\n")).not.toContain("CommandLine");
    expect(lines.filter((line) => /^ [ ›] \d\./.test(line)).map((line) => line.slice(3))).toEqual([
      "1. Yes, once",
      "2. Yes, and don't ask again this session Bash(npm test)",
      "3. Yes, always (saved to ~/.agents/folder-permissions.json) Bash(npm test)",
      "4. No",
      "5. No, and tell it what to do instead",
    ]);
  });

  it("takes arrows, digits, Escape and typed words", () => {
    const dialog = dialogFor(request);
    expect(permissionAnswer(press(dialog, "\x1b[B\r") as never)).toEqual({ choice: "session" });
    expect(permissionAnswer(press(dialog, "\x1b[A\x1b[A\r") as never)).toEqual({ choice: "deny" });
    expect(permissionAnswer(press(dialog, "3") as never)).toEqual({ choice: "always" });
    expect(permissionAnswer(press(dialog, "\x1b[27u") as never)).toEqual({ choice: "deny" });
    expect(permissionAnswer(press(dialog, "use yarn\r") as never)).toEqual({
      choice: "deny",
      message: "use yarn",
    });
  });

  it("offers only once and no when nothing can be remembered (force_ask)", () => {
    const lines = drawDialog(dialogFor({ ...request, forced: true }), 100, theme).lines.join("\n");
    expect(lines).toContain("Confirmation required: run_command");
    expect(lines).not.toContain("this session");
    expect(lines).not.toContain("always");
  });
});

describe("ask_question as a dialog", () => {
  const question = { question: "Which database?", options: ["Postgres", "SQLite"], multiSelect: false };

  it("answers with the option chosen or the words typed", () => {
    const dialog = questionDialog(question, "");
    expect(questionAnswer(question, press(dialog, "\x1b[B\r") as never)).toEqual(["SQLite"]);
    expect(questionAnswer(question, press(dialog, "MySQL please\r") as never)).toEqual(["MySQL please"]);
    expect(questionAnswer(question, press(dialog, "\x1b[27u") as never)).toBeUndefined();
  });

  it("ticks several options with space when the question allows it", () => {
    const multi = { ...question, multiSelect: true };
    expect(questionAnswer(multi, press(questionDialog(multi, ""), " \x1b[B \r") as never)).toEqual([
      "Postgres",
      "SQLite",
    ]);
  });
});
