import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { ToolResult } from "../../src/tools/contract.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// SPEC §3 / issue 2 point 4: "a symlink swapped in between check and open, which only opening first and
// then verifying the opened descriptor defeats". The unit tests in test/workspace/paths.test.ts swap once,
// by hand, between resolveInsideWorkspace and openVerifiedFile. Here a separate process swaps names as
// fast as it can while view_file runs through the one pipeline many times: no call may ever return the
// outside content; each returns the inside content or an error that names the refusal.

const INSIDE = "INSIDE CONTENT";
const OUTSIDE = "OUTSIDE SECRET";
const RACE_MS = 2_500;
const CONCURRENT_CALLS = 6;

let ws: TempWorkspace | undefined;
let session: GantrySession | undefined;
let swapper: ChildProcess | undefined;

afterEach(async () => {
  swapper?.kill("SIGKILL");
  swapper = undefined;
  await session?.dispose();
  await ws?.cleanup();
  session = undefined;
  ws = undefined;
});

/** A node process that runs `loop` (statements using `fs`, `pause`, `a`-`d`) until it is killed. */
async function startSwapper(loop: string, ...paths: string[]): Promise<void> {
  const script = `
    const fs = require("node:fs");
    const [a, b, c, d] = process.argv.slice(1);
    const pause = new Int32Array(new SharedArrayBuffer(4)); // for Atomics.wait: a short sleep
    process.stdout.write("ready\\n");
    for (;;) { try { ${loop} } catch {} }`;
  swapper = spawn(process.execPath, ["-e", script, ...paths], { stdio: ["ignore", "pipe", "inherit"] });
  const child = swapper;
  await new Promise<void>((resolve, reject) => {
    child.stdout?.once("data", () => resolve());
    child.once("exit", (code) => reject(new Error(`swapper exited early (${code})`)));
  });
}

/** Calls view_file on `target` again and again for RACE_MS, several calls at a time; tallies the outcomes. */
async function race(target: string) {
  const s = session as GantrySession;
  const results: ToolResult[] = [];
  const deadline = Date.now() + RACE_MS;
  let round = 0;
  while (Date.now() < deadline) {
    const batch = Array.from({ length: CONCURRENT_CALLS }, (_, i) =>
      s.pipeline.run({
        name: "view_file",
        // half the calls read a range, which takes the streaming path
        args:
          (round + i) % 2 === 0
            ? { AbsolutePath: target }
            : { AbsolutePath: target, StartLine: 1, EndLine: 1 },
      }),
    );
    results.push(...(await Promise.all(batch)));
    round++;
  }
  const tally: Record<string, number> = {};
  for (const result of results) {
    const key = result.error ? String(result.errorCode) : "inside";
    tally[key] = (tally[key] ?? 0) + 1;
  }
  return { results, tally };
}

function expectNoEscape(results: ToolResult[], allowedErrors: string[]) {
  for (const result of results) {
    expect(result.text).not.toContain(OUTSIDE);
    expect(JSON.stringify(result.metadata)).not.toContain(OUTSIDE);
    if (!result.error) {
      expect(result.text).toContain(INSIDE);
      continue;
    }
    expect(allowedErrors, result.text).toContain(result.errorCode);
    // the reason names what happened: the path lies outside, or it changed / became a link, or it vanished
    expect(result.text).toMatch(
      /outside the workspace|changed while it was opened|became a symlink|does not exist|symlink/,
    );
  }
}

async function workspace() {
  ws = await createTempWorkspace({ "inside.txt": `${INSIDE}\n`, "sub/notes.txt": `${INSIDE}\n` });
  await writeFile(path.join(ws.parent, "secret.txt"), `${OUTSIDE}\n`);
  await mkdir(path.join(ws.parent, "outside-dir"));
  await writeFile(path.join(ws.parent, "outside-dir", "notes.txt"), `${OUTSIDE}\n`);
  session = createGantrySession({ workspace: ws.root, home: ws.home });
  return ws;
}

describe("view_file under a symlink swapped between check and open", () => {
  it("never returns the outside file while link flips between inside.txt and an outside file", async () => {
    const w = await workspace();
    const link = path.join(w.root, "link");
    await symlink("inside.txt", link);
    // each swap is an atomic rename of a fresh link over `link`, so the name always exists
    await startSwapper(
      `fs.symlinkSync(c, a); fs.renameSync(a, b); fs.symlinkSync(d, a); fs.renameSync(a, b);`,
      path.join(w.root, ".link-next"),
      link,
      "inside.txt",
      path.join(w.parent, "secret.txt"),
    );
    const { results, tally } = await race("link");
    expectNoEscape(results, ["outside_workspace", "invalid_path"]);
    // the race really ran both ways
    expect(tally.inside ?? 0, JSON.stringify(tally)).toBeGreaterThan(0);
    expect(tally.outside_workspace ?? 0, JSON.stringify(tally)).toBeGreaterThan(0);
  });

  it("never returns the outside file while a regular file flips with a symlink to an outside file", async () => {
    const w = await workspace();
    const notes = path.join(w.root, "notes.txt");
    await writeFile(notes, `${INSIDE}\n`);
    // notes.txt is a regular file when resolved, then maybe a link by the time it is opened (O_NOFOLLOW)
    await startSwapper(
      `fs.writeFileSync(a, ${JSON.stringify(`${INSIDE}\n`)}); fs.renameSync(a, b); fs.symlinkSync(c, a); fs.renameSync(a, b);`,
      path.join(w.root, ".notes-next"),
      notes,
      path.join(w.parent, "secret.txt"),
    );
    const { results, tally } = await race("notes.txt");
    expectNoEscape(results, ["outside_workspace", "invalid_path"]);
    expect(tally.inside ?? 0, JSON.stringify(tally)).toBeGreaterThan(0);
    expect(tally.outside_workspace ?? 0, JSON.stringify(tally)).toBeGreaterThan(0);
  });

  it("never returns the outside file while a parent folder flips with a symlink to an outside folder", async () => {
    const w = await workspace();
    const sub = path.join(w.root, "sub");
    // sub/ is a real folder when resolved, then maybe a link to ../outside-dir by the time notes.txt is
    // opened (O_NOFOLLOW guards only the last component: the opened descriptor must be verified)
    await startSwapper(
      `fs.renameSync(b, a); fs.symlinkSync(c, d); fs.renameSync(d, b); Atomics.wait(pause, 0, 0, 0.2); fs.unlinkSync(b); fs.renameSync(a, b); Atomics.wait(pause, 0, 0, 0.2);`,
      path.join(w.root, ".sub-real"),
      sub,
      path.join(w.parent, "outside-dir"),
      path.join(w.root, ".sub-link"),
    );
    const { results, tally } = await race("sub/notes.txt");
    expectNoEscape(results, ["outside_workspace", "invalid_path", "not_found", "not_a_directory"]);
    expect(tally.inside ?? 0, JSON.stringify(tally)).toBeGreaterThan(0);
    expect(tally.outside_workspace ?? 0, JSON.stringify(tally)).toBeGreaterThan(0);
  });
});
