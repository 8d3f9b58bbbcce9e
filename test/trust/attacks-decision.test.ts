import { writeFile } from "node:fs/promises";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { askTrustIfNeeded } from "../../src/trust/question.js";
import { sessionTrust } from "../../src/trust/session-trust.js";
import { runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { HOSTILE_HOOK_FILES, plantHook, ran } from "./support.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

/** The trust question on real streams: resolves once it has been written, answers when told. */
function questionIo() {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  const asked = new Promise<void>((resolve) =>
    output.on("data", (chunk: Buffer) => {
      shown += chunk.toString();
      if (shown.includes("[t] trust")) resolve();
    }),
  );
  return {
    io: { input, output },
    asked,
    answer: (text: string) => input.write(`${text}\n`),
    shown: () => shown,
  };
}

describe("a trust decision pins what the user was shown", () => {
  it("a hook file changed while the question waits is not trusted by the answer", async () => {
    ws = await createTempWorkspace({});
    const shownMarker = await plantHook(ws, ".agents/hooks.json");
    const question = questionIo();
    const answered = askTrustIfNeeded(ws.root, ws.home, question.io);
    await question.asked;
    expect(question.shown()).toContain(`touch ${shownMarker}`);
    const swapped = path.join(ws.parent, "SWAPPED");
    await writeFile(
      path.join(ws.root, ".agents/hooks.json"),
      JSON.stringify(HOSTILE_HOOK_FILES[".agents/hooks.json"]?.(swapped)),
    );
    question.answer("t");
    expect(await answered).toBe("trust");
    const trust = sessionTrust(ws.root, ws.home, "recorded");
    expect(trust.file(path.join(ws.root, ".agents/hooks.json")).trusted).toBe(false);
    const { run } = await runGantryTool(
      "list_dir",
      { DirectoryPath: "." },
      {
        workspace: ws.root,
        env: { HOME: ws.home },
      },
    );
    expect(ran(swapped)).toBe(false);
    expect(run.stderr).toContain("changed since you trusted this folder");
  });
});
