import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../../support/model-server.js";
import type { TmuxTerminal } from "../../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";
import { HAS_TMUX, READY, startTui, TUI_TEST } from "./support.js";

let server: ModelServer | undefined;
let ws: TempWorkspace | undefined;
let term: TmuxTerminal | undefined;
afterEach(async () => {
  await term?.close();
  await server?.close();
  await ws?.cleanup();
  term = server = ws = undefined;
});

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
      ws = await createTempWorkspace();
      server = await startModelServer([{ text: "Got three lines." }, { text: "Got two more." }]);
      term = await startTui(server, ws);
      await term.waitFor(READY);
      await term.paste("line one\nline two\nline three");
      const pasted = await term.waitFor("  line three");
      expect(pasted).toMatch(/> line one\n {2}line two\n {2}line three/);
      expect(server.requests).toHaveLength(0); // nothing sent while pasting
      await term.keys("Enter");
      await term.waitFor("Got three lines.");
      expect(server.requests).toHaveLength(1);
      expect(lastUserMessage(server)).toContain("line one\nline two\nline three");

      await term.type("first\\");
      await term.keys("Enter");
      await term.type("second");
      await term.keys("M-Enter");
      await term.type("third");
      await term.waitFor(/> first\n {2}second\n {2}third/);
      await term.keys("Enter");
      await term.waitFor("Got two more.");
      expect(lastUserMessage(server)).toContain("first\nsecond\nthird");
      server.assertDone();
    },
  );

  it("keeps the history per workspace across sessions: Up recalls, Ctrl-R searches", TUI_TEST, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([{ text: "One." }, { text: "Two." }]);
    term = await startTui(server, ws);
    await term.waitFor(READY);
    await term.type("deploy the staging build");
    await term.keys("Enter");
    await term.waitFor("One.");
    await term.type("check the logs");
    await term.keys("Enter");
    await term.waitFor("Two.");
    await term.keys("C-d");
    expect(await term.waitForExit()).toBe(0);
    await term.close();

    term = await startTui(server, ws);
    await term.waitFor(READY);
    await term.keys("Up");
    await term.waitFor("> check the logs");
    await term.keys("Up");
    await term.waitFor("> deploy the staging build");
    await term.keys("Down", "Down");
    await term.waitFor(READY);
    await term.keys("C-r");
    await term.type("stag");
    await term.waitFor('(reverse-i-search) "stag": deploy the staging build');
    await term.keys("Right");
    const accepted = await term.waitFor(/\n> deploy the staging build/);
    expect(accepted).not.toContain("reverse-i-search");
    server.assertDone();
  });

  it("completes @paths from the workspace files (secrets and ignored files left out)", TUI_TEST, async () => {
    ws = await createTempWorkspace({
      "src/app.ts": "export {};\n",
      "src/apple.txt": "x\n",
      ".env": "SECRET=1\n",
      ".gitignore": "build/\n",
      "build/app.js": "x\n",
    });
    server = await startModelServer([
      {
        expect: (request) => expect(request.text).toContain("explain @src/app.ts please"),
        text: "It exports nothing.",
      },
    ]);
    term = await startTui(server, ws);
    await term.waitFor(READY);
    await term.type("explain @src/app");
    const popup = await term.waitFor("› src/app.ts");
    expect(popup).toContain("src/apple.txt");
    expect(popup).not.toContain("build/app.js");
    await term.keys("Tab");
    // accepted: the popup closed (tmux drops the trailing space the completion added)
    await term.waitFor(/> explain @src\/app\.ts *\n─/);
    await term.type("please");
    await term.keys("Enter");
    await term.waitFor("It exports nothing.");
    await term.type("@.en");
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await term.screen()).not.toContain("› .env");
    server.assertDone();
  });

  it("queues what is typed during a turn and runs it next; Esc cancels a turn", TUI_TEST, async () => {
    ws = await createTempWorkspace();
    server = await startModelServer([
      { text: "Working on the first", delayMs: 2_500 },
      { expect: (request) => expect(request.text).toContain("the second request"), text: "Second done." },
      { text: "Thinking forever", stall: true },
      { expect: (request) => expect(request.text).toContain("after the cancel"), text: "Back again." },
    ]);
    term = await startTui(server, ws);
    await term.waitFor(READY);
    await term.type("the first request");
    await term.keys("Enter");
    await term.waitFor("Thinking");
    await term.type("the second request");
    await term.keys("Enter");
    const queued = await term.waitFor("↳ queued: the second request");
    expect(queued).not.toContain("> the second request"); // not echoed into the answer
    await term.waitFor("Second done.");
    expect(server.requests).toHaveLength(2);

    await term.type("a long one");
    await term.keys("Enter");
    await term.waitFor("Thinking forever");
    await term.keys("Escape");
    await term.waitFor("(interrupted)");
    await term.type("after the cancel");
    await term.keys("Enter");
    await term.waitFor("Back again.");
    server.assertDone();
  });
});
