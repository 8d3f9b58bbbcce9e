import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { scriptsNamedBy } from "../../src/trust/hook-scripts.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// What a hook command names is pinned by trust; a file it only writes (its log) is not, and that must
// not become a way to hide a script the command also runs.

let ws: TempWorkspace;
beforeAll(async () => {
  ws = await createTempWorkspace({});
  for (const name of ["gate.sh", "hook.log", "gen.sh", "in.sh", "teefile", "err.txt"])
    writeFileSync(path.join(ws.root, name), "");
});
afterAll(async () => {
  await ws.cleanup();
});

const named = (command: string) =>
  scriptsNamedBy(command, ws.root)
    .map((abs) => path.relative(ws.root, abs))
    .sort();

it("leaves out the files a hook only writes: redirect targets and tee's files", () => {
  expect(named("sh gate.sh >> hook.log 2>err.txt")).toEqual(["gate.sh"]);
  expect(named('sh gate.sh &>"$CLAUDE_PROJECT_DIR"/hook.log')).toEqual(["gate.sh"]);
  expect(named("cat | tee -a hook.log err.txt > /dev/null")).toEqual([]);
});

it("still names a written file the command also runs or reads, and what it reads from stdin", () => {
  expect(named("echo x > gen.sh; sh gen.sh")).toEqual(["gen.sh"]);
  expect(named("bash < in.sh 2>&1 | tee hook.log")).toEqual(["in.sh"]);
  expect(named("bash -c 'sh gate.sh > hook.log'")).toEqual(["gate.sh"]);
});

it("takes tee only as a word of its own (a file named teefile is still named)", () => {
  expect(named("cat teefile | tee hook.log")).toEqual(["teefile"]);
  expect(named("sh teefile")).toEqual(["teefile"]);
});
