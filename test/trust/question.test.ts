import { readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { HAS_TMUX, startGantryInTmux, type TmuxTerminal } from "../support/tmux.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { HOSTILE_HOOK_FILES, plantHook, ran } from "./support.js";

let ws: TempWorkspace | undefined;
let server: ModelServer | undefined;
const terminals: TmuxTerminal[] = [];
afterEach(async () => {
  for (const terminal of terminals.splice(0)) await terminal.close();
  await server?.close();
  server = undefined;
  await ws?.cleanup();
  ws = undefined;
});

const E2E = { timeout: 90_000 };

async function gantryIn(workspace: TempWorkspace, live: ModelServer): Promise<TmuxTerminal> {
  const terminal = await startGantryInTmux(
    ["--model", "openai:m", "--base-url", live.baseUrl("openai"), "--workspace", workspace.root],
    { env: { HOME: workspace.home, OPENAI_API_KEY: "k", NO_COLOR: "1" }, width: 160, height: 50 },
  );
  terminals.push(terminal);
  return terminal;
}

/** One prompt's worth of script: a list_dir call (which the planted hook gates) and an answer. */
function listTurns(answer: string) {
  return [{ toolCalls: [{ name: "list_dir", args: { DirectoryPath: "." } }] }, { text: answer }];
}

/** The prompt is up and reading keys (a key sent before that reaches no reader). */
async function ready(terminal: TmuxTerminal): Promise<void> {
  await terminal.waitFor(/help for commands\n[\s\S]*> Type a request/);
  await new Promise((resolve) => setTimeout(resolve, 500));
}

function store(home: string): Record<string, { decision: string }> {
  try {
    return JSON.parse(readFileSync(path.join(home, ".agents/trusted-folders.json"), "utf8")).folders;
  } catch {
    return {};
  }
}

describe.skipIf(!HAS_TMUX)("the trust question in a real terminal", () => {
  it(
    "shows every hook command and allow rule with its file; trust records it and the hooks run, now and next time",
    E2E,
    async () => {
      ws = await createTempWorkspace({
        ".claude/settings.json": JSON.stringify({ permissions: { allow: ["Bash(make:*)"] } }),
      });
      const marker = await plantHook(ws, ".agents/hooks.json");
      server = await startModelServer([...listTurns("FIRST-DONE"), ...listTurns("SECOND-DONE")]);
      const first = await gantryIn(ws, server);
      const question = await first.waitFor("Trust this folder?");
      expect(question).toContain(`${ws.root} is not trusted. Its configuration would enable:`);
      expect(question).toContain(".agents/hooks.json");
      expect(question).toContain(`hooks: pre_tool_execution "": touch ${marker}`);
      expect(question).toContain(".claude/settings.json");
      expect(question).toContain("permissions.allow: Bash(make:*)");
      expect(ran(marker)).toBe(false);
      await first.type("t");
      await first.keys("Enter");
      await first.waitFor("Trusted");
      expect(store(ws.home)[ws.root]?.decision).toBe("trusted");
      await first.type("list the folder");
      await first.keys("Enter");
      await first.waitFor("FIRST-DONE");
      expect(ran(marker)).toBe(true);
      await first.keys("C-d");
      await first.waitForExit();

      const second = await gantryIn(ws, server);
      await second.waitFor("/help for commands");
      expect(await second.screen()).not.toContain("Trust this folder?");
      await second.type("again");
      await second.keys("Enter");
      await second.waitFor("SECOND-DONE");
    },
  );

  it(
    "not now runs the session narrowed and asks again next time; never is recorded and not asked again",
    E2E,
    async () => {
      ws = await createTempWorkspace({});
      const marker = await plantHook(ws, ".agents/hooks.json");
      server = await startModelServer([...listTurns("NARROWED-DONE")]);
      const first = await gantryIn(ws, server);
      await first.waitFor("Trust this folder?");
      await first.type("n");
      await first.keys("Enter");
      await first.waitFor("Not trusted for now");
      await first.type("list");
      await first.keys("Enter");
      await first.waitFor("NARROWED-DONE");
      expect(ran(marker)).toBe(false);
      expect(store(ws.home)[ws.root]).toBeUndefined();
      await first.keys("C-d");
      await first.waitForExit();

      const second = await gantryIn(ws, server);
      await second.waitFor("Trust this folder?");
      await second.type("v");
      await second.keys("Enter");
      await second.waitFor("will not be trusted");
      expect(store(ws.home)[ws.root]?.decision).toBe("never");
      await ready(second);
      await second.keys("C-d");
      await second.waitForExit();

      const third = await gantryIn(ws, server);
      await third.waitFor("/help for commands");
      expect(await third.screen()).not.toContain("Trust this folder?");
    },
  );

  it("asks again, saying what changed, when a trusted hook file changes", E2E, async () => {
    ws = await createTempWorkspace({});
    await plantHook(ws, ".agents/hooks.json");
    server = await startModelServer([]);
    const first = await gantryIn(ws, server);
    await first.waitFor("Trust this folder?");
    await first.type("t");
    await first.keys("Enter");
    await ready(first);
    await first.keys("C-d");
    await first.waitForExit();
    const swapped = path.join(ws.parent, "after-pull");
    await writeFile(
      path.join(ws.root, ".agents/hooks.json"),
      JSON.stringify(HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(swapped)),
    );
    const second = await gantryIn(ws, server);
    const question = await second.waitFor("Trust this folder?");
    expect(question).toContain(
      `Since you trusted ${ws.root}, its configuration changed. It would now enable:`,
    );
    expect(question).toContain(`touch ${swapped}`);
  });
});
