import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GANTRY_BIN, REPO_ROOT, runGantry, runGantryTool } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

// Runs the real built command (dist/cli/main.js): build first with `npx tsc -p tsconfig.build.json`.
let ws: TempWorkspace;
beforeAll(async () => {
  ws = await createTempWorkspace({
    "README.md": "# Demo\nhello from the readme\n",
    "src/a.ts": "export {};\n",
  });
  await writeFile(path.join(ws.parent, "x"), "OUTSIDE SECRET");
});
afterAll(async () => ws?.cleanup());

/** `command args…` in the workspace, its output collected (python3 stands between the test and gantry). */
function runNodeThrough(command: string, args: string[]) {
  const run = spawnSync(command, args, {
    cwd: ws.root,
    env: { ...process.env, HOME: ws.home },
    encoding: "utf8",
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("gantry tool", () => {
  it("runs view_file through the pipeline and prints the result JSON", async () => {
    const { run, result } = await runGantryTool(
      "view_file",
      { AbsolutePath: "README.md" },
      {
        workspace: ws.root,
        env: { HOME: ws.home },
      },
    );
    expect(run.code).toBe(0);
    expect(result.error).toBe(false);
    expect(result.text).toBe("    1\t# Demo\n    2\thello from the readme");
    expect(result.metadata).toMatchObject({ path: "README.md", totalLines: 2, truncated: false });
  });

  it("writes a whole large result to a non-blocking stdout pipe whose reader is slow", async () => {
    // 300 KB of result: far more than a pipe holds, so the write meets a full pipe (EAGAIN) and waits
    await writeFile(path.join(ws.root, "big.txt"), `${"x".repeat(199)}\n`.repeat(1_500));
    await mkdir(path.join(ws.home, ".agents"), { recursive: true });
    await writeFile(path.join(ws.home, ".agents/settings.json"), '{"limits":{"maxOutputChars":1000000}}');
    const reader = [
      "import os, subprocess, sys, time",
      "r, w = os.pipe()",
      "os.set_blocking(w, False)",
      "p = subprocess.Popen(sys.argv[1:], stdout=w, stdin=subprocess.DEVNULL)",
      "os.close(w)",
      "time.sleep(1)",
      "chunks = []",
      "while True:",
      "    chunk = os.read(r, 65536)",
      "    if not chunk: break",
      "    chunks.append(chunk)",
      "sys.stdout.buffer.write(b''.join(chunks))",
      "sys.exit(p.wait())",
    ].join("\n");
    const args = JSON.stringify({ AbsolutePath: "big.txt", StartLine: 1, EndLine: 1_500 });
    const run = await runNodeThrough("python3", [
      "-c",
      reader,
      process.execPath,
      GANTRY_BIN,
      "tool",
      "view_file",
      args,
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { text: string; metadata: { totalLines: number } };
    expect(run.stdout.length).toBeGreaterThan(300_000);
    expect(result.metadata.totalLines).toBe(1_500);
    expect(result.text.split("\n")).toHaveLength(1_500);
    await rm(path.join(ws.home, ".agents/settings.json"));
  });

  it("uses the current folder as the workspace when --workspace is not given", async () => {
    const run = await runGantry(["tool", "ls", '{"DirectoryPath":"."}'], {
      cwd: ws.root,
      env: { HOME: ws.home },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).text).toContain("README.md");
  });

  it("prints error true with a reason and exits 0 for a path outside the workspace", async () => {
    const run = await runGantry(["tool", "view_file", '{"AbsolutePath":"../x"}', "--workspace", ws.root], {
      env: { HOME: ws.home },
    });
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ error: true, errorCode: "outside_workspace" });
    expect(result.text).toContain("outside the workspace");
    expect(run.stdout).not.toContain("OUTSIDE SECRET");
  });

  it("with stdin /dev/null (a character device, not a terminal) denies what would ask, naming the fix", async () => {
    const args = { TargetFile: "new.txt", Overwrite: false, CodeContent: "x\n", Description: "a new file" };
    const run = await runGantry(["tool", "write_to_file", JSON.stringify(args), "--workspace", ws.root], {
      env: { HOME: ws.home },
      stdin: "ignore",
      timeoutMs: 10_000,
    });
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({ error: true, errorCode: "denied" });
    expect(result.text).toContain("--approval-mode");
    expect(() => readFileSync(path.join(ws.root, "new.txt"))).toThrow();
  });

  it("exits 2 with the usage for bad JSON, a missing tool name or an unknown option", async () => {
    for (const args of [
      ["tool", "view_file", "{not json"],
      ["tool"],
      ["tool", "view_file", "{}", "--no-such-option"],
    ]) {
      const run = await runGantry([...args, "--workspace", ws.root], { env: { HOME: ws.home } });
      expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toContain("Usage:");
      expect(run.stdout).toBe("");
    }
  });
});

describe("gantry tools and --version", () => {
  it("lists the read tools with aliases, safety level and enabled state", async () => {
    const run = await runGantry(["tools", "--workspace", ws.root], { env: { HOME: ws.home } });
    expect(run.code).toBe(0);
    const lines = run.stdout.split("\n");
    expect(lines[0]).toMatch(/^NAME\s+ALIASES\s+SAFETY\s+GROUP\s+ENABLED$/);
    expect(lines.find((l) => l.startsWith("view_file "))).toMatch(/read_file, read\s+read_only\s+Read\s+yes/);
    expect(lines.find((l) => l.startsWith("list_dir "))).toMatch(/list_files, ls\s+read_only\s+Read\s+yes/);
    // the edit tools, with their display group (the terminal UI shows them as Edit)
    const row = (name: string) => lines.find((l) => l.startsWith(`${name} `))?.split(/\s{2,}/);
    expect(row("write_to_file")).toEqual(["write_to_file", "write_file, write", "write", "Edit", "yes"]);
    expect(row("replace_file_content")).toEqual([
      "replace_file_content",
      "edit, replace",
      "write",
      "Edit",
      "yes",
    ]);
    expect(row("multi_replace_file_content")).toEqual([
      "multi_replace_file_content",
      "multi_edit",
      "write",
      "Edit",
      "yes",
    ]);
    expect(row("delete_file")).toEqual(["delete_file", "-", "write", "Edit", "yes"]);
  });

  it("prints the package version", async () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    const run = await runGantry(["--version"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(`${pkg.version}\n`);
    // -v alone is answered by the launcher, beside other options by the CLI: the same answer
    for (const args of [["-v"], ["--version", "--approval-mode", "yolo"]]) {
      const other = await runGantry(args);
      expect({ args, code: other.code, stdout: other.stdout }).toEqual({
        args,
        code: 0,
        stdout: `${pkg.version}\n`,
      });
    }
  });
});
