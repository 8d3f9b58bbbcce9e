import { createHash } from "node:crypto";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createAgentInbox } from "../../../src/agent/inbox.js";
import { createGantrySession, type GantrySession } from "../../../src/gantry.js";
import { createViewFileTool } from "../../../src/tools/files/view-file.js";
import { createToolPipeline } from "../../../src/tools/pipeline.js";
import { createToolRegistry } from "../../../src/tools/registry.js";
import { createReadLedger } from "../../../src/workspace/read-ledger.js";
import { openWorkspace } from "../../../src/workspace/workspace.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

async function open(files: Record<string, string | Uint8Array>, settings?: object) {
  ws = await createTempWorkspace(files);
  if (settings) await ws.write(".agents/settings.json", JSON.stringify(settings));
  session = createGantrySession({ workspace: ws.root, home: ws.home });
  const s = session;
  return (args: Record<string, unknown>, name = "view_file") => s.pipeline.run({ name, args });
}

const numbered = (from: number, lines: string[]) =>
  lines.map((line, i) => `${String(from + i).padStart(5)}\t${line}`).join("\n");

/** Follows `metadata.next` until a result is complete; returns every result's text. */
async function pageThrough(
  view: (args: Record<string, unknown>) => ReturnType<GantrySession["pipeline"]["run"]>,
  first: Record<string, unknown>,
) {
  const results = [];
  let args: Record<string, unknown> | undefined = first;
  while (args) {
    const result = await view(args);
    expect(result.error).toBe(false);
    results.push(result);
    args = result.metadata.next as Record<string, unknown> | undefined;
    expect(results.length).toBeLessThan(200);
  }
  return results;
}

describe("view_file", () => {
  it("reads a UTF-8 text file with numbered lines and its metadata", async () => {
    const view = await open({ "src/hello.txt": "첫 줄 hello\nsecond 😀\nthird\n" });
    const result = await view({ AbsolutePath: "src/hello.txt" });
    expect(result.error).toBe(false);
    expect(result.text).toBe(numbered(1, ["첫 줄 hello", "second 😀", "third"]));
    expect(result.metadata).toMatchObject({
      path: "src/hello.txt",
      bytes: Buffer.byteLength("첫 줄 hello\nsecond 😀\nthird\n"),
      totalLines: 3,
      startLine: 1,
      endLine: 3,
      truncated: false,
    });
  });

  it("takes an absolute path inside the workspace", async () => {
    const view = await open({ "a.txt": "alpha\n" });
    const result = await view({ AbsolutePath: path.join(ws!.root, "a.txt") });
    expect(result.text).toBe(numbered(1, ["alpha"]));
  });

  it("shows a 1-based inclusive line range", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const view = await open({ "f.txt": `${lines.join("\n")}\n` });
    const result = await view({ AbsolutePath: "f.txt", StartLine: 10, EndLine: 12 });
    expect(result.text).toBe(numbered(10, ["line 10", "line 11", "line 12"]));
    expect(result.metadata).toMatchObject({ startLine: 10, endLine: 12, totalLines: 30, truncated: false });
  });

  it("counts a last line without a newline and drops CRLF endings and a byte order mark", async () => {
    const view = await open({ "crlf.txt": "\uFEFFone\r\ntwo\r\nthree" });
    const result = await view({ AbsolutePath: "crlf.txt" });
    expect(result.text).toBe(numbered(1, ["one", "two", "three"]));
    expect(result.metadata.totalLines).toBe(3);
  });

  it("shows at most maxReadLines lines without a range and names the next call", async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `row ${i + 1}`);
    const view = await open({ "rows.txt": `${lines.join("\n")}\n` }, { limits: { maxReadLines: 10 } });
    const result = await view({ AbsolutePath: "rows.txt" });
    expect(result.text.split("\n").slice(0, 10).join("\n")).toBe(numbered(1, lines.slice(0, 10)));
    expect(result.metadata).toMatchObject({ truncated: true, endLine: 10, totalLines: 25 });
    expect(result.metadata.next).toEqual({ AbsolutePath: "rows.txt", StartLine: 11 });
    expect(result.text.split("\n").at(-1)).toMatch(
      /^\[truncated .*lines 1-10 of 25 shown.*"StartLine":11\}\]$/,
    );
  });

  it("refuses a path outside the workspace", async () => {
    const view = await open({ "a.txt": "a" });
    await writeFile(path.join(ws!.parent, "outside.txt"), "private");
    const result = await view({ AbsolutePath: "../outside.txt" });
    expect(result).toMatchObject({ error: true, errorCode: "outside_workspace" });
    expect(result.text).not.toContain("private");
  });

  it("refuses a secret file", async () => {
    const view = await open({ ".env": "TOKEN=abc", "config/server.pem": "KEY" });
    for (const secret of [".env", "config/server.pem"]) {
      const result = await view({ AbsolutePath: secret });
      expect(result).toMatchObject({ error: true, errorCode: "secret_path" });
      expect(result.text).not.toContain("abc");
    }
  });

  it("refuses a file over maxFileBytes without a range, and tells the model to pass StartLine/EndLine", async () => {
    const big = `${"x".repeat(99)}\n`.repeat(50);
    const view = await open({ "big.log": big }, { limits: { maxFileBytes: 1000 } });
    const whole = await view({ AbsolutePath: "big.log" });
    expect(whole).toMatchObject({ error: true, errorCode: "too_large" });
    expect(whole.text).toContain("StartLine");
    expect(whole.text).toContain("EndLine");
    const part = await view({ AbsolutePath: "big.log", StartLine: 48, EndLine: 50 });
    expect(part.error).toBe(false);
    expect(part.text).toBe(numbered(48, ["x".repeat(99), "x".repeat(99), "x".repeat(99)]));
  });

  it("refuses a binary file with binary_file", async () => {
    const view = await open({ "app.bin": new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3]) });
    const result = await view({ AbsolutePath: "app.bin" });
    expect(result).toMatchObject({ error: true, errorCode: "binary_file" });
  });

  it("returns a picture as an image part, judged by its magic bytes", async () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);
    const view = await open({ "logo.png": png, "renamed.dat": png });
    for (const name of ["logo.png", "renamed.dat"]) {
      const result = await view({ AbsolutePath: name });
      expect(result.error).toBe(false);
      expect(result.images).toEqual([{ mimeType: "image/png", data: Buffer.from(png).toString("base64") }]);
      expect(result.metadata).toMatchObject({ bytes: png.length, mimeType: "image/png" });
      expect(result.text).toContain("image/png");
    }
  });

  it("reads a text file named like an image as text", async () => {
    const view = await open({ "notes.png": "not really a picture\n" });
    const result = await view({ AbsolutePath: "notes.png" });
    expect(result.images).toBeUndefined();
    expect(result.text).toBe(numbered(1, ["not really a picture"]));
  });

  it("cuts at a line boundary within the output limit, and the named next calls return every line once", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `${i + 1}: ${"word ".repeat(i % 17)}`);
    const view = await open({ "long.txt": `${lines.join("\n")}\n` }, { limits: { maxOutputChars: 2000 } });
    const results = await pageThrough(view, { AbsolutePath: "long.txt", StartLine: 1, EndLine: 400 });
    expect(results.length).toBeGreaterThan(5);
    const seen: string[] = [];
    for (const result of results) {
      expect(result.text.length).toBeLessThanOrEqual(2000);
      const body = result.metadata.truncated ? result.text.split("\n").slice(0, -1) : result.text.split("\n");
      if (result.metadata.truncated)
        expect(result.text.split("\n").at(-1)).toMatch(/output limit.*Next call: \{/);
      for (const line of body) seen.push(line.slice(line.indexOf("\t") + 1));
    }
    expect(seen).toEqual(lines);
    expect(results[0]?.metadata).toMatchObject({ truncated: true });
  });

  it("pages through one line too long for a call with ContentOffset, never splitting a character", async () => {
    const line = Array.from({ length: 3000 }, (_, i) => (i % 7 === 0 ? "😀" : `a${i}`)).join("");
    const view = await open(
      { "app.min.js": `${line}\nconsole.log(1)\n` },
      { limits: { maxOutputChars: 1000 } },
    );
    const results = await pageThrough(view, { AbsolutePath: "app.min.js" });
    let rebuilt = "";
    for (const result of results.slice(0, -1)) {
      expect(result.metadata.truncated).toBe(true);
      const first = result.text.split("\n")[0] as string;
      rebuilt += first.slice(first.indexOf("\t") + 1);
    }
    const last = results.at(-1)!.text.split("\n");
    rebuilt += (last[0] as string).slice((last[0] as string).indexOf("\t") + 1);
    expect(rebuilt).toBe(line);
    expect(last[1]).toBe(numbered(2, ["console.log(1)"]));
    expect(results[1]?.metadata.next ?? results[0]?.metadata.next).toMatchObject({ StartLine: 1 });
  });

  it("pages a line longer than one read chunk at any ContentOffset, multi-byte characters included", async () => {
    const unit = "ab😀é—";
    const line = `${unit.repeat(250_000)}END`; // about 3 MB of UTF-8, read in 1 MB chunks
    const view = await open({ "bundle.min.js": `\uFEFF${line}\n` }, { limits: { maxOutputChars: 2000 } });
    for (const offset of [0, 1_000_001, line.length - 10]) {
      const result = await view({ AbsolutePath: "bundle.min.js", StartLine: 1, ContentOffset: offset });
      expect(result.error).toBe(false);
      const first = result.text.split("\n")[0] as string;
      const shown = first.slice(first.indexOf("\t") + 1);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown).toBe(line.slice(offset, offset + shown.length));
      if (offset + shown.length < line.length) {
        expect(result.metadata.next).toEqual({
          AbsolutePath: "bundle.min.js",
          StartLine: 1,
          ContentOffset: offset + shown.length,
        });
      } else {
        expect(shown.endsWith("END")).toBe(true);
      }
    }
  });

  it("says when StartLine is past the end of the file", async () => {
    const view = await open({ "short.txt": "a\nb\n" });
    const result = await view({ AbsolutePath: "short.txt", StartLine: 5 });
    expect(result).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(result.text).toContain("2 lines");
  });

  it("says when ContentOffset is past the end of the line", async () => {
    const view = await open({ "short.txt": "abc\n" });
    const result = await view({ AbsolutePath: "short.txt", StartLine: 1, ContentOffset: 10 });
    expect(result).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(result.text).toContain("3 characters");
  });

  it("refuses EndLine before StartLine, naming EndLine", async () => {
    const view = await open({ "short.txt": "abc\n" });
    const result = await view({ AbsolutePath: "short.txt", StartLine: 3, EndLine: 2 });
    expect(result).toMatchObject({ error: true, errorCode: "invalid_arguments" });
    expect(result.text).toContain("EndLine");
  });

  it("reads an empty file as empty", async () => {
    const view = await open({ "empty.txt": "" });
    const result = await view({ AbsolutePath: "empty.txt" });
    expect(result).toMatchObject({ error: false, metadata: { bytes: 0, totalLines: 0 } });
    expect(result.text).toContain("empty file");
  });

  it("reports a missing file and a folder", async () => {
    const view = await open({ "dir/a.txt": "a" });
    expect(await view({ AbsolutePath: "missing.txt" })).toMatchObject({
      error: true,
      errorCode: "not_found",
    });
    expect(await view({ AbsolutePath: "dir" })).toMatchObject({ error: true, errorCode: "not_a_file" });
  });

  it("streams a range near the end of a file over the size limit without counting the rest", async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `entry ${i + 1}`);
    const view = await open({ "huge.log": `${lines.join("\n")}\n` }, { limits: { maxFileBytes: 4096 } });
    const result = await view({ AbsolutePath: "huge.log", StartLine: 39_990, EndLine: 39_992 });
    expect(result.text).toBe(numbered(39_990, ["entry 39990", "entry 39991", "entry 39992"]));
    expect(result.metadata).toMatchObject({ startLine: 39_990, endLine: 39_992, truncated: false });
    expect(result.metadata.totalLines).toBeUndefined();
  });
});

describe("view_file read ledger", () => {
  it("records what it read, with the content hash when the whole file was read", async () => {
    ws = await createTempWorkspace({ "a.txt": "alpha\nbeta\n", "big.txt": "0123456789\n".repeat(20) });
    const workspace = openWorkspace(ws.root, { limits: { maxFileBytes: 100 } });
    const reads = createReadLedger();
    const tool = createViewFileTool({
      workspace,
      settings: {},
      reads,
      inbox: createAgentInbox(),
      lifecycle: { onDispose: () => {} },
    });
    const pipeline = createToolPipeline({ registry: createToolRegistry([tool]), maxOutputChars: 20_000 });
    await pipeline.run({ name: "view_file", args: { AbsolutePath: "a.txt", StartLine: 2 } });
    const whole = reads.get(path.join(ws.root, "a.txt"));
    expect(whole).toMatchObject({
      size: 11,
      sha256: createHash("sha256").update("alpha\nbeta\n").digest("hex"),
    });
    await pipeline.run({ name: "view_file", args: { AbsolutePath: "big.txt", StartLine: 1, EndLine: 2 } });
    const partial = reads.get(path.join(ws.root, "big.txt"));
    expect(partial).toMatchObject({ size: 220 });
    expect(partial?.sha256).toBeUndefined();
  });
});
