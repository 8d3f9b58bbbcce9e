import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createOutputCapture } from "../../../src/tools/exec/output-buffer.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

describe("createOutputCapture", () => {
  it("keeps small output in memory and writes no log", async () => {
    ws = await createTempWorkspace();
    const logPath = path.join(ws.root, "logs/out.log");
    const capture = createOutputCapture({ logPath, spillChars: 1000 });
    capture.write(Buffer.from("hello\n"));
    capture.finish();
    expect(capture.render(500)).toEqual({ text: "hello\n", truncated: false, omittedChars: 0 });
    expect(capture.logPath).toBeUndefined();
    expect(existsSync(logPath)).toBe(false);
  });

  it("spills to a log holding everything and renders head and tail within the limit", async () => {
    ws = await createTempWorkspace();
    const logPath = path.join(ws.root, "logs/out.log");
    const capture = createOutputCapture({ logPath, spillChars: 2000 });
    const lines = Array.from({ length: 5000 }, (_, i) => `line ${i}\n`);
    for (const line of lines) capture.write(Buffer.from(line));
    capture.finish();
    const rendered = capture.render(1000);
    expect(rendered.truncated).toBe(true);
    expect(rendered.text.startsWith("line 0\n")).toBe(true);
    expect(rendered.text.endsWith("line 4999\n")).toBe(true);
    expect(rendered.text.length).toBeLessThan(1100);
    expect(capture.logPath).toBe(logPath);
    expect(readFileSync(logPath, "utf8")).toBe(lines.join(""));
    expect(capture.totalBytes).toBe(Buffer.byteLength(lines.join("")));
  });

  it("decodes a UTF-8 character split across chunks and strips escapes in the log too", async () => {
    ws = await createTempWorkspace();
    const logPath = path.join(ws.root, "out.log");
    const capture = createOutputCapture({ logPath, spillChars: 8 });
    const bytes = Buffer.from("\u001b[32mé✓ done\u001b[0m more text\n");
    for (let i = 0; i < bytes.length; i++) capture.write(bytes.subarray(i, i + 1));
    capture.finish();
    expect(readFileSync(logPath, "utf8")).toBe("é✓ done more text\n");
  });

  it("reports only the output added since the last look", async () => {
    ws = await createTempWorkspace();
    const capture = createOutputCapture({ logPath: path.join(ws.root, "o.log"), spillChars: 100 });
    capture.write("first\n");
    expect(capture.takeNew(50).text).toBe("first\n");
    expect(capture.takeNew(50).text).toBe("");
    capture.write("x".repeat(300));
    const fresh = capture.takeNew(50);
    expect(fresh.text).toBe("x".repeat(50));
    expect(fresh.omittedChars).toBe(250);
  });
});
