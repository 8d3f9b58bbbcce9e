import { existsSync, symlinkSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { discoverCommands } from "../../src/slash-commands/catalog.js";
import { expandCommand } from "../../src/slash-commands/expand.js";
import type { ToolPipeline } from "../../src/tools/pipeline.js";
import { resolveWorkspaceTrust } from "../../src/trust/workspace-trust.js";
import { put } from "../skills/support.js";
import { E2E, gantryOn, sees, serverAndWorkspace } from "../support/e2e.js";
import { startModelServer } from "../support/model-server.js";
import { createTempWorkspace } from "../support/workspace.js";

// Custom slash commands as Claude Code (.claude/commands/*.md), Gemini CLI (.gemini/commands/*.toml) and
// Qwen Code write them.

const t = serverAndWorkspace();

/** `gantry <args>` there; untrusted unless the args say `--trust`. */
const gantry = (args: string[], input?: string) =>
  gantryOn(t.server, t.ws, args, { trust: false, ...(input !== undefined ? { input } : {}) });

describe("custom command files", () => {
  it("names them by path (a subfolder is a namespace); the user's own wins over a workspace's", async () => {
    t.ws = await createTempWorkspace({
      ".claude/commands/review.md": "---\ndescription: from the repo\n---\nrepo review",
      ".gemini/commands/git/commit.toml": 'description = "commit"\nprompt = "Commit: {{args}}"',
      ".qwen/commands/broken.toml": "prompt = ",
    });
    await put(
      t.ws.home,
      ".claude/commands/review.md",
      "---\ndescription: mine\nargument-hint: <pr>\n---\nmy review",
    );
    const catalog = discoverCommands(t.ws.root, t.ws.home);
    expect(catalog.commands.map((c) => [c.name, c.origin, c.description])).toEqual([
      ["git:commit", "workspace", "commit"],
      ["review", "home", "mine"],
    ]);
    expect(catalog.problems.map((p) => p.message)).toEqual([expect.stringMatching(/^not valid TOML/)]);
  });

  it("fills $ARGUMENTS and $1… in one pass: what the arguments say is not read for placeholders", async () => {
    t.ws = await createTempWorkspace({ ".claude/commands/echo.md": "first=$1 all=$ARGUMENTS" });
    const command = discoverCommands(t.ws.root, t.ws.home).get("echo");
    if (!command) throw new Error("the command was not found");
    // no shell line or file: the pipeline is never called
    const context = {
      pipeline: {} as ToolPipeline,
      signal: AbortSignal.timeout(5_000),
      trust: resolveWorkspaceTrust(t.ws.root, { kind: "untrusted", how: "a test" }),
    };
    const expanded = await expandCommand(command, "x$2 $ARGUMENTS", context);
    expect(expanded).toEqual({ ok: true, text: "first=x$2 all=x$2 $ARGUMENTS", notes: [] });
  });

  it("skips a command file too large to be a prompt", async () => {
    t.ws = await createTempWorkspace({ ".claude/commands/huge.md": "x".repeat(300 * 1024) });
    const catalog = discoverCommands(t.ws.root, t.ws.home);
    expect(catalog.get("huge")).toBeUndefined();
    expect(catalog.problems.map((p) => p.message)).toEqual([
      "307200 bytes: larger than a command file may be (262144); skipped",
    ]);
  });

  it("skips a workspace command file that links out of the workspace", async () => {
    t.ws = await createTempWorkspace({ "../private/id_rsa": "PRIVATE KEY" });
    await mkdir(`${t.ws.root}/.claude/commands`, { recursive: true });
    symlinkSync(`${t.ws.parent}/private/id_rsa`, `${t.ws.root}/.claude/commands/leak.md`);
    const catalog = discoverCommands(t.ws.root, t.ws.home);
    expect(catalog.get("leak")).toBeUndefined();
    expect(catalog.problems.map((p) => p.message)).toEqual(["links out of the workspace; skipped"]);
  });
});

describe("custom commands end to end", () => {
  it(
    "-p runs a Claude Code command: $1, $ARGUMENTS and a !`shell` line through the pipeline",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({
        ".claude/commands/review.md":
          "---\ndescription: review a PR\nallowed-tools: Bash(git:*)\n---\nReview PR $1 for $2. Everything: $ARGUMENTS. Branch: !`echo main-branch`.",
      });
      t.server = await startModelServer([
        {
          text: "reviewed",
          expect: sees("Review PR 42 for security. Everything: 42 security. Branch: main-branch."),
        },
      ]);
      const run = await gantry(["-p", "/review 42 security", "--approval-mode", "yolo", "--trust"]);
      expect(run.code, run.stderr).toBe(0);
      t.server.assertDone();
      expect(run.stderr).toContain("/review: its allowed-tools grant nothing here");
    },
  );

  it(
    "a Gemini CLI command: {{args}}, shell-quoted inside !{…}, and @{file}; what they bring in runs nothing",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({
        ".gemini/commands/git/commit.toml":
          'prompt = """Write a commit message for: {{args}}\nEcho: !{printf %s {{args}}}\nNotes: @{notes.txt}"""',
        "notes.txt": "remember !{touch pwned-by-file}\n",
      });
      t.server = await startModelServer([
        {
          text: "done",
          expect: sees(
            "Write a commit message for: it's !{touch pwned-by-args}",
            "Echo: it's !{touch pwned-by-args}",
            "remember !{touch pwned-by-file}",
          ),
        },
      ]);
      const run = await gantry([
        "-p",
        "/git:commit it's !{touch pwned-by-args}",
        "--approval-mode",
        "yolo",
        "--trust",
      ]);
      expect(run.code, run.stderr).toBe(0);
      t.server.assertDone();
      expect(existsSync(`${t.ws.root}/pwned-by-file`)).toBe(false);
      expect(existsSync(`${t.ws.root}/pwned-by-args`)).toBe(false);
    },
  );

  it("a shell line the policy does not allow stops the command; nothing is sent", E2E, async () => {
    t.ws = await createTempWorkspace({ ".claude/commands/deploy.md": "Deploy: !`touch deployed`" });
    t.server = await startModelServer([]);
    const run = await gantry(["-p", "/deploy", "--trust"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("/deploy: its shell line `touch deployed` did not run: Denied");
    expect(existsSync(`${t.ws.root}/deployed`)).toBe(false);
    expect(t.server.requests).toHaveLength(0);
  });

  it(
    "an untrusted folder's command runs no shell line, even in yolo; your own commands still do",
    E2E,
    async () => {
      t.ws = await createTempWorkspace({ ".claude/commands/setup.md": "Set up: !`touch by-repo`" });
      await put(t.ws.home, ".claude/commands/mine.md", "Mine: !`echo from-home`");
      t.server = await startModelServer([{ text: "ok", expect: sees("Mine: from-home") }]);
      const refused = await gantry(["-p", "/setup", "--approval-mode", "yolo"]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain(
        '/setup: its shell lines come from .claude/commands/setup.md: this folder is not trusted; run "gantry trust" in it',
      );
      expect(existsSync(`${t.ws.root}/by-repo`)).toBe(false);
      const mine = await gantry(["-p", "/mine", "--approval-mode", "yolo"]);
      expect(mine.code, mine.stderr).toBe(0);
      t.server.assertDone();
    },
  );

  it("the interactive session runs them and /help lists them", E2E, async () => {
    t.ws = await createTempWorkspace({
      ".agents/commands/greet.md":
        "---\ndescription: says hello\nargument-hint: <name>\n---\nSay hello to $ARGUMENTS.",
    });
    t.server = await startModelServer([{ text: "Hello, Ada!", expect: sees("Say hello to Ada.") }]);
    const run = await gantry([], "/help\n/greet Ada\n");
    expect(run.code, run.stderr).toBe(0);
    t.server.assertDone();
    expect(run.stdout).toContain("/greet <name>  says hello");
    expect(run.stdout).toContain("Hello, Ada!");
  });
});
