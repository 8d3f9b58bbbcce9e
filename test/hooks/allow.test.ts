import { existsSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import type { Asker, PermissionAnswer, PermissionRequest } from "../../src/policy/asker.js";
import type { ApprovalMode } from "../../src/policy/modes.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
afterEach(async () => {
  await session?.dispose();
  session = undefined;
  await ws?.cleanup();
});

const answer = (json: unknown) => ({ type: "command", command: `echo '${JSON.stringify(json)}'` });

/** The same "allow" in every dialect's words, on the tool every dialect names its own way. */
const ALLOW_FILES: Record<string, Record<string, string>> = {
  native: {
    ".agents/hooks.json": JSON.stringify({
      gate: { pre_tool_execution: [{ matcher: "", hooks: [answer({ decision: "allow" })] }] },
    }),
  },
  claude: {
    ".claude/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash|Write|Edit",
            hooks: [
              answer({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } }),
            ],
          },
        ],
      },
    }),
  },
  gemini: {
    ".gemini/settings.json": JSON.stringify({
      hooks: {
        BeforeTool: [{ matcher: "run_shell_command|write_file", hooks: [answer({ decision: "allow" })] }],
      },
    }),
  },
  qwen: {
    ".qwen/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "run_shell_command|write_file",
            hooks: [
              answer({ hookSpecificOutput: { permissionDecision: "allow", permissionDecisionReason: "ok" } }),
            ],
          },
        ],
      },
    }),
  },
};

const echo = (line: string) => ({
  name: "run_command",
  args: { CommandLine: line, Cwd: ".", WaitMsBeforeAsync: 10_000 },
});

async function open(files: Record<string, string>, approvalMode: ApprovalMode = "default", asker?: Asker) {
  ws = await createTempWorkspace(files);
  session = createGantrySession({
    workspace: ws.root,
    home: ws.home,
    approvalMode,
    requireReadBeforeEdit: false,
    trust: true,
    ...(asker ? { asker } : {}),
  });
  return session;
}

/** An interactive user who answers every question with `choice`, and remembers what was asked. */
function userWho(choice: PermissionAnswer["choice"]) {
  const asked: PermissionRequest[] = [];
  const asker: Asker = {
    kind: "callback",
    askPermission: async (request) => {
      asked.push(request);
      return { choice };
    },
    askQuestions: async () => {
      throw new Error("no questions in this test");
    },
  };
  return { asker, asked };
}

// Claude Code's allow skips its permission prompt (and Gantry's own contract follows seed 000)
const SKIPS_THE_QUESTION = ["native", "claude"];

describe("a hook's allow lets the call run without the approval mode's question", () => {
  for (const dialect of SKIPS_THE_QUESTION) {
    it(`${dialect}: a command runs in default mode, headless, where it would be denied without the hook`, async () => {
      const gantry = await open(ALLOW_FILES[dialect] as Record<string, string>);
      const result = await gantry.pipeline.run(echo("echo allowed-by-hook"));
      expect(result.text).toContain("allowed-by-hook");
      expect(result.error).toBe(false);
    });
  }

  it("contrast: without a hook the same call is denied by the approval mode", async () => {
    const gantry = await open({});
    const result = await gantry.pipeline.run(echo("echo never"));
    expect(result).toMatchObject({ errorCode: "denied" });
    expect(result.text).toContain("approval mode default");
  });
});

// Gemini CLI runs its policy check after BeforeTool whatever the hook said; Qwen Code fires PreToolUse
// after its approval step: in both an allow is no objection, and the approval mode still judges.
describe("a Gemini or Qwen hook's allow is no objection: the approval mode still judges", () => {
  for (const dialect of ["gemini", "qwen"]) {
    it(`${dialect}: default mode, headless, still denies the command, naming the approval mode`, async () => {
      const gantry = await open(ALLOW_FILES[dialect] as Record<string, string>);
      const result = await gantry.pipeline.run(echo("echo not-allowed-by-hook"));
      expect(result).toMatchObject({ errorCode: "denied" });
      expect(result.text).toContain("approval mode default");
    });

    it(`${dialect}: yolo mode runs it, as without the hook`, async () => {
      const gantry = await open(ALLOW_FILES[dialect] as Record<string, string>, "yolo");
      const result = await gantry.pipeline.run(echo("echo ran-in-yolo"));
      expect(result).toMatchObject({ error: false });
      expect(result.text).toContain("ran-in-yolo");
    });
  }
});

const ASK_FILES: Record<string, Record<string, string>> = {
  gemini: {
    ".gemini/settings.json": JSON.stringify({
      hooks: {
        BeforeTool: [
          { matcher: "run_shell_command", hooks: [answer({ decision: "ask", reason: "really run it?" })] },
        ],
      },
    }),
  },
  qwen: {
    ".qwen/settings.json": JSON.stringify({
      hooks: {
        PreToolUse: [
          {
            matcher: "run_shell_command",
            hooks: [
              answer({
                hookSpecificOutput: {
                  hookEventName: "PreToolUse",
                  permissionDecision: "ask",
                  permissionDecisionReason: "really run it?",
                },
              }),
            ],
          },
        ],
      },
    }),
  },
};

// Gemini CLI's ask sets ASK_USER with a forced decision its tools honour even in auto-edit; Qwen Code's
// bounces an approved call back to a confirmation: a person confirms in every approval mode.
describe("a Gemini or Qwen hook's ask forces the question in every approval mode", () => {
  for (const dialect of ["gemini", "qwen"]) {
    it(`${dialect}: yolo mode, headless, denies it: nobody can confirm`, async () => {
      const gantry = await open(ASK_FILES[dialect] as Record<string, string>, "yolo");
      const result = await gantry.pipeline.run(echo("echo should-not-run"));
      expect(result).toMatchObject({ errorCode: "denied" });
      expect(result.text).toContain("really run it?");
      expect(result.text).toContain("wants a person to confirm every time");
    });

    it(`${dialect}: yolo mode, interactive, asks the user, who may say yes once`, async () => {
      const { asker, asked } = userWho("once");
      const gantry = await open(ASK_FILES[dialect] as Record<string, string>, "yolo", asker);
      const result = await gantry.pipeline.run(echo("echo confirmed"));
      expect(result.text).toContain("confirmed");
      expect(asked).toHaveLength(1);
      expect(asked[0]?.forced).toBe(true);
    });
  }

  it("contrast: Claude's ask is an ordinary ask, which yolo answers", async () => {
    const gantry = await open(
      {
        ".claude/settings.json": JSON.stringify({
          hooks: {
            PreToolUse: [
              { matcher: "Bash", hooks: [answer({ hookSpecificOutput: { permissionDecision: "ask" } })] },
            ],
          },
        }),
      },
      "yolo",
    );
    const result = await gantry.pipeline.run(echo("echo yolo-answers"));
    expect(result).toMatchObject({ error: false });
  });
});

describe("a hook's allow never passes what a rule, the guard or the mode itself refuses", () => {
  it("an explicit ask rule still asks (headless: denied, naming the rule)", async () => {
    const gantry = await open({
      ...ALLOW_FILES.claude,
      ".agents/settings.json": JSON.stringify({ permissions: { ask: ["Bash(echo:*)"] } }),
    });
    const result = await gantry.pipeline.run(echo("echo asked"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("rule ask Bash(echo:*)");
  });

  it("an explicit deny rule still denies", async () => {
    const gantry = await open({
      ...ALLOW_FILES.native,
      ".agents/settings.json": JSON.stringify({ permissions: { deny: ["Bash(echo:*)"] } }),
    });
    const result = await gantry.pipeline.run(echo("echo denied"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("rule deny Bash(echo:*)");
  });

  it("plan mode still denies what would change something", async () => {
    const gantry = await open(ALLOW_FILES.gemini as Record<string, string>, "plan");
    const result = await gantry.pipeline.run(echo("echo planned"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("approval mode plan");
  });

  it("a command that does not parse still needs a person", async () => {
    const gantry = await open(ALLOW_FILES.native as Record<string, string>);
    const result = await gantry.pipeline.run(echo("echo 'unterminated"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).toContain("shell parser");
  });

  it("the workspace guard still refuses a secret file and a path outside", async () => {
    const gantry = await open(ALLOW_FILES.claude as Record<string, string>);
    const write = (file: string) => ({
      name: "write_to_file",
      args: { TargetFile: file, Overwrite: true, CodeContent: "x", Description: "write" },
    });
    expect((await gantry.pipeline.run(write(".env"))).errorCode).toBe("secret_path");
    expect((await gantry.pipeline.run(write("../outside.txt"))).errorCode).toBe("outside_workspace");
    expect(existsSync(path.join(ws.parent, "outside.txt"))).toBe(false);
    // and an ordinary file is written without the approval question
    expect((await gantry.pipeline.run(write("notes.txt"))).error).toBe(false);
  });

  it("a hook's allow is outvoted by another hook's ask", async () => {
    const gantry = await open({
      ".agents/hooks.json": JSON.stringify({
        gate: {
          pre_tool_execution: [
            {
              matcher: "",
              hooks: [answer({ decision: "allow" }), answer({ decision: "ask", reason: "sure?" })],
            },
          ],
        },
      }),
    });
    const result = await gantry.pipeline.run(echo("echo outvoted"));
    expect(result.errorCode).toBe("denied");
    expect(result.text).not.toContain("outvoted\n");
  });
});
