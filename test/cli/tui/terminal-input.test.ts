import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, openTui, READY, TUI_TEST, tuiResources } from "./support.js";

const tui = tuiResources();

/** The user prompts the model was sent, from the last request's messages (OpenAI protocol). */
function lastUserMessage(live: ModelServer): string {
  const messages = (live.requests.at(-1)?.body.messages ?? []) as { role: string; content: unknown }[];
  const user = messages.filter((message) => message.role === "user").at(-1);
  return typeof user?.content === "string" ? user.content : JSON.stringify(user?.content);
}

describe.skipIf(!HAS_TMUX)("the prompt editor", () => {
  it(
    "sends a pasted block as one prompt, and adds lines with Alt-Enter and a trailing backslash",
    TUI_TEST,
    async () => {
      tui.ws = await createTempWorkspace();
      tui.server = await startModelServer([{ text: "Got three lines." }, { text: "Got two more." }]);
      tui.term = await openTui(tui);
      await tui.term.paste("line one\nline two\nline three");
      const pasted = await tui.term.waitFor("  line three");
      expect(pasted).toMatch(/> line one\n {2}line two\n {2}line three/);
      expect(tui.server.requests).toHaveLength(0); // nothing sent while pasting
      await tui.term.keys("Enter");
      await tui.term.waitFor("Got three lines.");
      expect(tui.server.requests).toHaveLength(1);
      expect(lastUserMessage(tui.server)).toContain("line one\nline two\nline three");

      await tui.term.enter("first\\");
      await tui.term.type("second");
      await tui.term.keys("M-Enter");
      await tui.term.type("third");
      await tui.term.waitFor(/> first\n {2}second\n {2}third/);
      await tui.term.keys("Enter");
      await tui.term.waitFor("Got two more.");
      expect(lastUserMessage(tui.server)).toContain("first\nsecond\nthird");
      tui.server.assertDone();
    },
  );

  it("keeps the history per workspace across sessions: Up recalls, Ctrl-R searches", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([{ text: "One." }, { text: "Two." }]);
    tui.term = await openTui(tui);
    await tui.term.enter("deploy the staging build");
    await tui.term.waitFor("One.");
    await tui.term.enter("check the logs");
    await tui.term.waitFor("Two.");
    await tui.term.keys("C-d");
    expect(await tui.term.waitForExit()).toBe(0);
    await tui.term.close();

    tui.term = await openTui(tui);
    await tui.term.keys("Up");
    await tui.term.waitFor("> check the logs");
    await tui.term.keys("Up");
    await tui.term.waitFor("> deploy the staging build");
    await tui.term.keys("Down", "Down");
    await tui.term.waitFor(READY);
    await tui.term.keys("C-r");
    await tui.term.type("stag");
    await tui.term.waitFor('(reverse-i-search) "stag": deploy the staging build');
    await tui.term.keys("Right");
    const accepted = await tui.term.waitFor(/\n> deploy the staging build/);
    expect(accepted).not.toContain("reverse-i-search");
    tui.server.assertDone();
  });

  it("completes @paths from the workspace files (secrets and ignored files left out)", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace({
      "src/app.ts": "export {};\n",
      "src/apple.txt": "x\n",
      ".env": "SECRET=1\n",
      ".gitignore": "build/\n",
      "build/app.js": "x\n",
    });
    tui.server = await startModelServer([
      {
        expect: (request) => expect(request.text).toContain("explain @src/app.ts please"),
        text: "It exports nothing.",
      },
    ]);
    tui.term = await openTui(tui);
    await tui.term.type("explain @src/app");
    const popup = await tui.term.waitFor("› src/app.ts");
    expect(popup).toContain("src/apple.txt");
    expect(popup).not.toContain("build/app.js");
    await tui.term.keys("Tab");
    // accepted: the popup closed (tmux drops the trailing space the completion added)
    await tui.term.waitFor(/> explain @src\/app\.ts *\n─/);
    await tui.term.enter("please");
    await tui.term.waitFor("It exports nothing.");
    await tui.term.type("@.en");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await tui.term.screen()).not.toContain("› .env");
    tui.server.assertDone();
  });

  it("queues what is typed during a turn and runs it next; Esc cancels a turn", TUI_TEST, async () => {
    tui.ws = await createTempWorkspace();
    tui.server = await startModelServer([
      { text: "Working on the first", delayMs: 2_500 },
      { expect: (request) => expect(request.text).toContain("the second request"), text: "Second done." },
      { text: "Thinking forever", stall: true },
      { expect: (request) => expect(request.text).toContain("after the cancel"), text: "Back again." },
    ]);
    tui.term = await openTui(tui);
    await tui.term.enter("the first request");
    await tui.term.waitFor("Thinking");
    await tui.term.enter("the second request");
    const queued = await tui.term.waitFor("↳ queued: the second request");
    expect(queued).not.toContain("> the second request"); // not echoed into the answer
    await tui.term.waitFor("Second done.");
    expect(tui.server.requests).toHaveLength(2);

    await tui.term.enter("a long one");
    await tui.term.waitFor("Thinking forever");
    await tui.term.keys("Escape");
    await tui.term.waitFor("(interrupted)");
    await tui.term.enter("after the cancel");
    await tui.term.waitFor("Back again.");
    tui.server.assertDone();
  });
});
