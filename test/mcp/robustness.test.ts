import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { descendantsOf, isAlive } from "../../src/tools/exec/process-tree.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { edgeStdio, everythingStdio } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

async function open(mcpServers: Record<string, unknown>) {
  ws = await createTempWorkspace();
  session = createGantrySession({ workspace: ws.root, home: ws.home, mcpServers });
  return session;
}

/** The pids of server processes this test process started (children and their children). */
const serverPids = () => descendantsOf(process.pid);

/** The pids still alive once a SIGKILL has had time to land (it is delivered asynchronously). */
async function stillAlive(pids: number[]): Promise<number[]> {
  for (let tries = 0; tries < 50 && pids.some(isAlive); tries++) await new Promise((r) => setTimeout(r, 100));
  return pids.filter(isAlive);
}

describe("MCP servers that fail", () => {
  it("reports a server that exits at start with its stderr, keeps the whole of it in a log, and goes on", async () => {
    const s = await open({
      broken: {
        command: process.execPath,
        args: ["-e", "console.error('boom: GITHUB_TOKEN is missing'); process.exit(3)"],
      },
      fine: everythingStdio(),
    });
    const failures = await s.mcp.startMain();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('MCP server "broken" did not start');
    expect(failures[0]).toContain("boom: GITHUB_TOKEN is missing");
    const log = s.mcp.get("broken")?.logFile as string;
    expect(failures[0]).toContain(log);
    expect(readFileSync(log, "utf8")).toContain("boom: GITHUB_TOKEN is missing");
    expect(s.mcp.get("broken")?.state).toBe("failed");
    // the other server is unaffected
    const result = await s.pipeline.run({ name: "mcp__fine__echo", args: { message: "still here" } });
    expect(result.text).toContain("still here");
  }, 60_000);

  it("names a command that is not installed", async () => {
    const s = await open({ missing: { command: "gantry-no-such-mcp-server-binary" } });
    const [failure] = await s.mcp.startMain();
    expect(failure).toContain('"gantry-no-such-mcp-server-binary" was not found');
  }, 30_000);

  it("gives up on a server that never answers within startupTimeout, and ends its process", async () => {
    const s = await open({
      hanging: {
        command: process.execPath,
        args: ["-e", "setInterval(() => {}, 1e9)"],
        startupTimeout: 1500,
      },
    });
    const before = new Set(serverPids());
    const [failure] = await s.mcp.startMain();
    expect(failure).toContain("no answer within 1500 ms");
    const leftover = serverPids().filter((pid) => !before.has(pid));
    expect(await stillAlive(leftover)).toEqual([]);
  }, 30_000);

  it("cancels a call that outlives the server's timeout, and the server stays usable", async () => {
    const s = await open({ slow: everythingStdio({ timeout: 1500 }) });
    await s.mcp.startMain();
    const result = await s.pipeline.run({
      name: "mcp__slow__trigger-long-running-operation",
      args: { duration: 30, steps: 3 },
    });
    expect(result.error).toBe(true);
    expect(result.text).toContain("timed out after 1500 ms; the request was cancelled");
    const next = await s.pipeline.run({ name: "mcp__slow__echo", args: { message: "after" } });
    expect(next.text).toContain("after");
  }, 60_000);

  it("turns an abort into a cancellation of the call", async () => {
    const s = await open({ slow: everythingStdio() });
    await s.mcp.startMain();
    const controller = new AbortController();
    const pending = s.pipeline.run(
      { name: "mcp__slow__trigger-long-running-operation", args: { duration: 30, steps: 30 } },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 500);
    const result = await pending;
    expect(result.errorCode).toBe("aborted");
    const next = await s.pipeline.run({ name: "mcp__slow__echo", args: { message: "after abort" } });
    expect(next.text).toContain("after abort");
  }, 60_000);

  it("reports a server that crashes, and starts it again on the next use", async () => {
    const s = await open({ crashy: everythingStdio() });
    await s.mcp.startMain();
    const first = await s.pipeline.run({ name: "mcp__crashy__echo", args: { message: "one" } });
    expect(first.text).toContain("one");
    const ours = serverPids();
    // the crash: every server process dies mid-call
    const pending = s.pipeline.run({
      name: "mcp__crashy__trigger-long-running-operation",
      args: { duration: 20, steps: 20 },
    });
    setTimeout(() => {
      for (const pid of ours) process.kill(pid, "SIGKILL");
    }, 500);
    const during = await pending;
    expect(during.error).toBe(true);
    expect(during.text).toMatch(/exited|closed/i);
    const again = await s.pipeline.run({ name: "mcp__crashy__echo", args: { message: "two" } });
    expect(again.error).toBe(false);
    expect(again.text).toContain("two");
  }, 60_000);

  it("ends a server behind a shell wrapper that ignores the end of its input and SIGTERM", async () => {
    const edge = edgeStdio("hang-on-exit");
    // the wrapper stays (no exec), so the SDK's own kill reaches the shell and not the server under it
    const line = [edge.command, ...edge.args].map((word) => JSON.stringify(word)).join(" ");
    const s = await open({ stuck: { command: "sh", args: ["-c", `${line}; true`] } });
    const before = new Set(serverPids());
    expect(await s.mcp.startMain()).toEqual([]);
    const started = serverPids().filter((pid) => !before.has(pid));
    expect(started.length).toBeGreaterThanOrEqual(1);
    await s.dispose();
    session = undefined;
    expect(await stillAlive(started)).toEqual([]);
  }, 60_000);

  it("ends every server process when the session ends", async () => {
    const s = await open({ a: everythingStdio(), b: everythingStdio() });
    const before = new Set(serverPids());
    await s.mcp.startMain();
    const started = serverPids().filter((pid) => !before.has(pid));
    expect(started.length).toBeGreaterThanOrEqual(2);
    await s.dispose();
    session = undefined;
    expect(await stillAlive(started)).toEqual([]);
  }, 60_000);
});
