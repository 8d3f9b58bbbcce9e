import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// A one-shot `gantry tool` call is a benchmark target (issue 19): Node's heavy built-ins that such a call
// never uses stay unloaded. node:crypto alone was about 6% of a tiny call's instructions, node:tty (and
// the node:net it loads) a few %; a stdin of /dev/null is a character device too, told apart from a
// terminal without node:tty. The bundle loads an imported built-in function on its first call
// (rolldown.config.js); ids come from the kernel's random pool (src/session/random-ids.ts); the result is
// written to descriptor 1, not through process.stdout (src/cli/write-sync.ts).

let ws: TempWorkspace;
let preload: string;
beforeAll(async () => {
  ws = await createTempWorkspace({ "src/a.ts": "export const a = 1;\n" });
  // the user's own settings and hooks are read, not judged: hashing them would load node:crypto
  mkdirSync(path.join(ws.home, ".claude"), { recursive: true });
  writeFileSync(
    path.join(ws.home, ".claude", "settings.json"),
    JSON.stringify({
      permissions: { allow: ["Read"] },
      hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "true" }] }] },
    }),
  );
  preload = path.join(ws.parent, "module-list.cjs");
  // the built-ins loaded, and the bundle's chunks read (the launcher reads each it compiles)
  writeFileSync(
    preload,
    [
      `const fs = require("node:fs");`,
      `const read = fs.readFileSync;`,
      `const chunks = [];`,
      `fs.readFileSync = function (file, ...rest) {`,
      `  if (typeof file === "string" && /[\\/]dist[\\/]bundle[\\/][^\\/]+\\.js$/.test(file)) chunks.push(file);`,
      `  return read.call(this, file, ...rest);`,
      `};`,
      `process.on("exit", () => {`,
      `  fs.writeFileSync(process.env.MODULE_LIST, process.moduleLoadList.join("\\n"));`,
      `  fs.writeFileSync(process.env.MODULE_LIST + ".chunks", chunks.join("\\n"));`,
      `});`,
      "",
    ].join("\n"),
  );
});
afterAll(async () => {
  await ws.cleanup();
});

async function modulesLoadedBy(
  args: string[],
  stdin: "pipe" | "ignore" = "pipe",
): Promise<{ loaded: string[]; chunks: string[]; text: string; stderr: string }> {
  const list = path.join(ws.parent, "modules.txt");
  const run = await runGantry([...args, "--workspace", ws.root], {
    env: { HOME: ws.home, NODE_OPTIONS: `--require ${preload}`, MODULE_LIST: list },
    stdin,
  });
  // nothing, or the notice that an untrusted repository's hooks are not honoured
  expect(run.stderr).toMatch(/^(gantry: \.claude\/settings\.json: ignored [^\n]*\n)*$/);
  expect(run.code).toBe(0);
  return {
    loaded: readFileSync(list, "utf8").split("\n"),
    chunks: readFileSync(`${list}.chunks`, "utf8").split("\n").filter(Boolean),
    text: (JSON.parse(run.stdout) as { text: string }).text,
    stderr: run.stderr,
  };
}

it("a one-shot find_by_name call, its stdin a pipe, loads neither node:crypto, node:tty, worker threads nor fs/promises", async () => {
  const { loaded, text } = await modulesLoadedBy([
    "tool",
    "find_by_name",
    '{"SearchDirectory":"src","Pattern":"*.ts"}',
  ]);
  expect(loaded).toContain("NativeModule fs");
  expect(loaded).not.toContain("NativeModule crypto");
  expect(loaded).not.toContain("NativeModule tty");
  // a walk this small ends before it would start listing workers: their module (~1.2 ms) is not loaded
  expect(loaded).not.toContain("NativeModule worker_threads");
  expect(loaded).not.toContain("NativeModule fs/promises");
  expect(text).toContain("src/a.ts");
});

it("a one-shot view_file of a small file, its stdin /dev/null, loads neither node:crypto, node:tty nor fs/promises", async () => {
  const { loaded, text } = await modulesLoadedBy(
    ["tool", "view_file", '{"AbsolutePath":"src/a.ts"}'],
    "ignore",
  );
  expect(loaded).not.toContain("NativeModule crypto");
  expect(loaded).not.toContain("NativeModule tty");
  // the result goes to stdout (a pipe here) by its descriptor: no socket, so neither node:net nor streams
  expect(loaded).not.toContain("NativeModule net");
  expect(loaded).not.toContain("NativeModule stream");
  // the policy's realpath and the guarded open and reads are on fs callbacks (workspace/open-file.ts):
  // node:fs/promises loads readline, file watchers and folder streams, about 1 ms
  expect(loaded).not.toContain("NativeModule fs/promises");
  // a plain command line is read without Node's parseArgs (cli/plain-arguments.ts), and the decoder of
  // a command's output loads with the first command
  expect(loaded).not.toContain("NativeModule internal/util/parse_args/parse_args");
  expect(loaded).not.toContain("NativeModule string_decoder");
  expect(text).toBe("    1\texport const a = 1;");
});

it("a call that needs node:crypto still gets it on first use (view_file hashes a large file as it reads)", async () => {
  writeFileSync(path.join(ws.root, "src/large.ts"), "export const b = 2;\n".repeat(5000));
  const { loaded, text } = await modulesLoadedBy([
    "tool",
    "view_file",
    '{"AbsolutePath":"src/large.ts","StartLine":1,"EndLine":1}',
  ]);
  expect(loaded).toContain("NativeModule crypto");
  expect(text).toContain("    1\texport const b = 2;");
});

// What only some calls use loads with the first of them (a chunk of its own), not with every start:
// the shell analysis the policy judges commands with, the diff an edit shows, the cron parser.
it("a one-shot view_file reads none of the chunks of the shell analysis, the edit diff or the cron parser", async () => {
  const { chunks, text } = await modulesLoadedBy(["tool", "view_file", '{"AbsolutePath":"src/a.ts"}']);
  expect(text).toBe("    1\texport const a = 1;");
  expect(chunks.length).toBeGreaterThan(3);
  const code = chunks.map((file) => readFileSync(file, "latin1")).join("\n");
  expect(code).toContain("function createGantrySession");
  expect(code).not.toContain("function analyzeShellCommand");
  expect(code).not.toContain("function structuredPatch");
  expect(code).not.toContain("Invalid ISO8601 passed to timezone parser.");
});

it("an untrusted repository's settings and hooks are read, not honoured and not hashed: no node:crypto, no socket for the notice", async () => {
  // only a trusted folder's decision has digests to compare a file with
  await ws.write(
    ".claude/settings.json",
    JSON.stringify({
      permissions: { deny: ["Read(./notes.md)"] },
      hooks: { SessionEnd: [{ hooks: [{ type: "command", command: "true" }] }] },
    }),
  );
  try {
    const { loaded, text, stderr } = await modulesLoadedBy([
      "tool",
      "view_file",
      '{"AbsolutePath":"src/a.ts"}',
    ]);
    expect(text).toBe("    1\texport const a = 1;");
    expect(loaded).not.toContain("NativeModule crypto");
    // the notice of what was ignored reaches stderr (a pipe) by its descriptor, as the result does stdout
    expect(stderr).toMatch(/^gantry: \.claude\/settings\.json: ignored /);
    expect(loaded).not.toContain("NativeModule net");
    expect(loaded).not.toContain("NativeModule stream");
  } finally {
    rmSync(path.join(ws.root, ".claude"), { recursive: true, force: true });
  }
});
