import { mkdir, open as openFile, readFile, stat } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { ToolResult } from "../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Issue 2 point 5: "A line range of a huge file is read by streaming, never by loading the file." With
// limits.maxFileBytes at 64 KB (in .agents/settings.json) and a 20 MB file, a range near the end must
// come back right while this process's memory never grows by anything near the file's size.

const LINE_BYTES = 64; // every line is exactly this long, newline included
const LINES = 20 * 16 * 1024; // 327,680 lines = 20 MiB
const FILE_BYTES = LINE_BYTES * LINES;
const MAX_FILE_BYTES = 64 * 1024;

const lineText = (n: number) => `row ${String(n).padStart(7, "0")} `.padEnd(LINE_BYTES - 1, "x");

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

/** Writes the big file a megabyte at a time, so building it never holds it in memory. */
async function writeBigFile(abs: string) {
  const handle = await openFile(abs, "w");
  try {
    const perChunk = (1024 * 1024) / LINE_BYTES;
    for (let first = 1; first <= LINES; first += perChunk) {
      const lines: string[] = [];
      for (let n = first; n < first + perChunk && n <= LINES; n++) lines.push(`${lineText(n)}\n`);
      await handle.write(lines.join(""));
    }
  } finally {
    await handle.close();
  }
}

/**
 * Runs `work` while sampling heapUsed + arrayBuffers every millisecond (and between the awaits of the
 * work itself); returns how far the peak rose above the level just before it started.
 */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ value: T; growth: number }> {
  const level = () => {
    const usage = process.memoryUsage();
    return usage.heapUsed + usage.arrayBuffers;
  };
  const before = level();
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, level());
  }, 1);
  try {
    const value = await work();
    peak = Math.max(peak, level());
    return { value, growth: peak - before };
  } finally {
    clearInterval(sampler);
  }
}

const numbered = (from: number, to: number) =>
  Array.from(
    { length: to - from + 1 },
    (_, i) => `${String(from + i).padStart(5)}\t${lineText(from + i)}`,
  ).join("\n");

describe("view_file of a range near the end of a file over limits.maxFileBytes", () => {
  it("streams it: right lines and metadata, memory far below the file's size", async () => {
    ws = await createTempWorkspace();
    await ws.write(".agents/settings.json", JSON.stringify({ limits: { maxFileBytes: MAX_FILE_BYTES } }));
    const big = path.join(ws.root, "logs", "huge.log");
    await mkdir(path.dirname(big), { recursive: true });
    await writeBigFile(big);
    expect((await stat(big)).size).toBe(FILE_BYTES);
    session = createGantrySession({ workspace: ws.root, home: ws.home });
    const s = session;
    const view = (args: Record<string, unknown>) => s.pipeline.run({ name: "view_file", args });

    // the limit from the settings file is in force: the whole file is refused, a range is asked for
    const whole = await view({ AbsolutePath: "logs/huge.log" });
    expect(whole).toMatchObject({ error: true, errorCode: "too_large" });
    expect(whole.text).toContain("StartLine");

    // the measurement can see a file being loaded: reading it whole shows up in full
    {
      const loaded = await peakGrowth(() => readFile(big));
      expect(loaded.value.length).toBe(FILE_BYTES);
      expect(loaded.growth).toBeGreaterThanOrEqual(FILE_BYTES * 0.9);
    }

    const start = LINES - 105;
    const end = LINES - 5;
    await view({ AbsolutePath: "logs/huge.log", StartLine: 1, EndLine: 1 }); // warm up modules and caches
    const ranged = await peakGrowth<ToolResult>(() =>
      view({ AbsolutePath: "logs/huge.log", StartLine: start, EndLine: end }),
    );
    const result = ranged.value;
    expect(result.error, result.text).toBe(false);
    expect(result.text).toBe(numbered(start, end));
    expect(result.metadata).toMatchObject({
      path: "logs/huge.log",
      bytes: FILE_BYTES,
      startLine: start,
      endLine: end,
      truncated: false,
    });
    // the read stopped at the window's end, so the total is not known and not claimed
    expect(result.metadata.totalLines).toBeUndefined();
    expect(result.metadata.next).toBeUndefined();
    expect(ranged.growth, `peak growth ${ranged.growth} bytes`).toBeLessThan(FILE_BYTES / 4);

    // the very last lines, where the range runs up to the end of the file
    const tail = await peakGrowth<ToolResult>(() =>
      view({ AbsolutePath: "logs/huge.log", StartLine: LINES - 2, EndLine: LINES }),
    );
    expect(tail.value.text).toBe(numbered(LINES - 2, LINES));
    expect(tail.value.metadata).toMatchObject({ startLine: LINES - 2, endLine: LINES, truncated: false });
    expect(tail.growth, `peak growth ${tail.growth} bytes`).toBeLessThan(FILE_BYTES / 4);
  });
});
