import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

describe("a command read with the shell's grammar", () => {
  let code: TempWorkspace;
  beforeAll(async () => {
    code = await createTempWorkspace({
      ".agents/gate.sh": "",
      ".agents/hooks-scripts/gate.sh": "",
      "node_modules/.bin/prettier": "",
      "node_modules/prettier/package.json": JSON.stringify({ bin: { prettier: "bin/prettier.cjs" } }),
      "node_modules/prettier/bin/prettier.cjs": "",
      "node_modules/@modelcontextprotocol/server-filesystem/package.json": JSON.stringify({
        bin: "dist/index.js",
      }),
      "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js": "",
      "node_modules/pre/package.json": "{}",
      "evilpy/__main__.py": "",
      "tools/server.cjs": "",
      "tools/pre.cjs": "",
    });
  });
  afterAll(async () => {
    await code.cleanup();
  });
  const names = (command: string, options: { cwd?: string } = {}) =>
    scriptsNamedBy(command, code.root, { home: code.home, ...options })
      .map((abs) => path.relative(code.root, abs))
      .sort();

  it("names the workspace file behind $PWD, ${PWD} and an unknown expansion followed by a path", () => {
    expect(names('sh "$PWD/.agents/gate.sh"')).toEqual([".agents/gate.sh"]);
    expect(names("sh ${PWD}/.agents/gate.sh")).toEqual([".agents/gate.sh"]);
    expect(names('sh "${CLAUDE_PROJECT_DIR:-.}/.agents/gate.sh"')).toEqual([".agents/gate.sh"]);
    expect(names('sh "$(git rev-parse --show-toplevel)/.agents/gate.sh"')).toEqual([".agents/gate.sh"]);
    expect(names('sh "$HOME/.agents/gate.sh"')).toEqual([]);
  });

  it("keeps a quoted '>' from hiding the script after it, and expands braces", () => {
    expect(names("echo '>' ; sh .agents/hooks-scripts/gate.sh ''")).toEqual([
      ".agents/hooks-scripts/gate.sh",
    ]);
    expect(names('bash -c "sh .agents/hooks-scripts/{gate,x}.sh"')).toEqual([
      ".agents/hooks-scripts/gate.sh",
    ]);
    expect(names("sh .agents/hooks-scripts/gate.sh > .agents/gate.sh")).toEqual([
      ".agents/hooks-scripts/gate.sh",
    ]);
  });

  it("names the workspace's copy of what npx, python -m and node -r run", () => {
    expect(names("npx --no-install prettier --version")).toEqual([
      "node_modules/.bin/prettier",
      "node_modules/prettier/bin/prettier.cjs",
      "node_modules/prettier/package.json",
    ]);
    expect(names("npx -y @modelcontextprotocol/server-filesystem /tmp")).toEqual([
      "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
      "node_modules/@modelcontextprotocol/server-filesystem/package.json",
    ]);
    expect(names("python3 -m evilpy")).toEqual(["evilpy/__main__.py"]);
    expect(names("node -r pre -e 0")).toEqual(["node_modules/pre/package.json"]);
    expect(names("node --require=./tools/pre.cjs -e 0")).toEqual(["tools/pre.cjs"]);
    expect(names("NODE_OPTIONS='--require ./tools/pre.cjs' node -e 0")).toEqual(["tools/pre.cjs"]);
    expect(names("node server.cjs", { cwd: path.join(code.root, "tools") })).toEqual(["tools/server.cjs"]);
    expect(names("npx -y cowsay hi; python3 -m json.tool")).toEqual([]);
  });
});
