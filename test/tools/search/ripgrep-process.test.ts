import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { type SearchFixture, searchFixture } from "./support.js";

// This file runs in its own worker, so the rg looked up (once per process) is the stand-in below:
// GANTRY_FAKE_RG=hang records its pid and sleeps; GANTRY_FAKE_RG=broken fails like an rg too old for our flags.
let bin: string;
let savedPath: string | undefined;
let fixture: SearchFixture | undefined;

beforeAll(async () => {
  bin = await mkdtemp(path.join(tmpdir(), "gantry-fake-rg-"));
  const script = [
    "#!/bin/sh",
    'if [ "$GANTRY_FAKE_RG" = broken ]; then',
    "  echo \"error: Found argument '--include-zero' which wasn't expected\" >&2",
    "  exit 2",
    "fi",
    'echo $$ > "$GANTRY_FAKE_RG_PID"',
    "exec sleep 60",
  ].join("\n");
  await writeFile(path.join(bin, "rg"), `${script}\n`);
  await chmod(path.join(bin, "rg"), 0o755);
  savedPath = process.env.PATH;
  process.env.PATH = `${bin}${path.delimiter}${savedPath}`;
});
afterAll(async () => {
  process.env.PATH = savedPath;
  await rm(bin, { recursive: true, force: true });
});
afterEach(async () => {
  delete process.env.GANTRY_FAKE_RG;
  delete process.env.GANTRY_FAKE_RG_PID;
  await fixture?.close();
  fixture = undefined;
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

it("kills ripgrep when the call is aborted", async () => {
  fixture = await searchFixture({ "a.txt": "hit\n" }, { engine: "ripgrep" });
  const pidFile = path.join(fixture.ws.parent, "rg.pid");
  process.env.GANTRY_FAKE_RG = "hang";
  process.env.GANTRY_FAKE_RG_PID = pidFile;
  const controller = new AbortController();
  const pending = fixture.session.pipeline.run(
    { name: "grep_search", args: { SearchPath: ".", Query: "hit" } },
    { signal: controller.signal },
  );
  for (let waited = 0; !existsSync(pidFile) || readFileSync(pidFile, "utf8").trim() === ""; waited += 10) {
    if (waited > 10_000) throw new Error("the stand-in rg never started");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  expect(isAlive(pid)).toBe(true);
  controller.abort();
  const result = await pending;
  expect(result.error).toBe(true);
  expect(result.errorCode).toBe("aborted");
  for (let waited = 0; isAlive(pid) && waited < 5_000; waited += 20) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(isAlive(pid)).toBe(false);
});

it("answers with the Node engine when rg fails (too old for the flags, or crashed)", async () => {
  fixture = await searchFixture(
    { "a.txt": "one\nhit two\n", "b.bin": Uint8Array.from([0, 1]) },
    { engine: "ripgrep" },
  );
  process.env.GANTRY_FAKE_RG = "broken";
  const result = await fixture.run("grep_search", { SearchPath: ".", Query: "hit" });
  expect(result.error).toBe(false);
  expect(result.text).toBe("a.txt:2: hit two\n[skipped 1 binary file(s)]");
  expect(result.metadata).toMatchObject({ engine: "node", skippedBinaryFiles: 1 });
});
