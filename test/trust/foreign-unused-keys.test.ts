import { afterEach, describe, expect, it } from "vitest";
import { loadSessionSettings } from "../../src/config/load.js";
import { createConfigReport } from "../../src/config/provenance.js";
import { resolveWorkspaceTrust } from "../../src/trust/workspace-trust.js";
import { runGantry } from "../support/cli.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { writeHomeFile } from "./support.js";

// Gantry reads the sandbox, env, hooks and permissions of Claude Code's settings files, and the hooks
// and MCP servers of Gemini CLI's and Qwen Code's. Their other keys do nothing here; each is named
// once with the session's config notices (and why, where it matters for safety), never dropped in silence.

let ws: TempWorkspace | undefined;
afterEach(async () => {
  await ws?.cleanup();
  ws = undefined;
});

/** The config notices the real loader gives for this workspace (untrusted unless said). */
function warningsOf(root: string, home: string, trusted = false): string[] {
  const report = createConfigReport();
  const trust = resolveWorkspaceTrust(
    root,
    trusted ? { kind: "given", how: "test" } : { kind: "untrusted", how: "test" },
  );
  loadSessionSettings({ root, home, trust, report });
  return report.warnings;
}

describe("keys of other harnesses' settings that Gantry does not use", () => {
  it(".claude/settings.json: each unused key is one line, with why where it matters; used and $schema keys are quiet", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.json": JSON.stringify({
        $schema: "https://json.schemastore.org/claude-code-settings.json",
        model: "claude-opus-4",
        apiKeyHelper: "./get-key.sh",
        statusLine: { type: "command", command: "./status.sh" },
        includeCoAuthoredBy: false,
        sandbox: { enabled: true },
        env: { A: "1" },
        permissions: { deny: ["Bash(rm:*)"] },
        hooks: {},
        enableAllProjectMcpServers: true,
        disabledMcpjsonServers: ["x"],
      }),
    });
    const warnings = warningsOf(ws.root, ws.home);
    expect(warnings).toEqual([
      ".claude/settings.json: model is not used by Gantry; ignored: the session's model is --model or `model` in .agents/settings.json (provider:model-id)",
      ".claude/settings.json: apiKeyHelper is not used by Gantry; ignored: Gantry never runs a settings file's command to get a key or credentials",
      ".claude/settings.json: statusLine is not used by Gantry; ignored: Gantry never runs a settings file's status line command",
      ".claude/settings.json: includeCoAuthoredBy is not used by Gantry; ignored",
    ]);
  });

  it(".claude/settings.local.json of a trusted folder: named the same (trust does not make them count)", async () => {
    ws = await createTempWorkspace({
      ".claude/settings.local.json": JSON.stringify({
        awsAuthRefresh: "aws sso login",
        cleanupPeriodDays: 5,
      }),
    });
    expect(warningsOf(ws.root, ws.home, true)).toEqual([
      ".claude/settings.local.json: awsAuthRefresh is not used by Gantry; ignored: Gantry never runs a settings file's command to get a key or credentials",
      ".claude/settings.local.json: cleanupPeriodDays is not used by Gantry; ignored",
    ]);
  });

  it(".gemini/settings.json and .qwen/settings.json: tool commands, model and auth named with why, hooks and mcpServers quiet", async () => {
    const gemini = {
      $schema: "x",
      tools: { discoveryCommand: "./discover.sh", callCommand: "./call.sh", exclude: ["run_shell_command"] },
      model: { name: "gemini-2.5-pro" },
      security: { auth: { selectedType: "oauth-personal" } },
      ui: { theme: "Dracula" },
      mcpServers: {},
      hooks: {},
    };
    ws = await createTempWorkspace({
      ".gemini/settings.json": JSON.stringify(gemini),
      ".qwen/settings.json": JSON.stringify({ toolDiscoveryCommand: "./d.sh", mcpServers: {} }),
    });
    const warnings = warningsOf(ws.root, ws.home);
    const tools = "Gantry does not run a repository's command to discover or call tools";
    expect(warnings).toEqual([
      `.gemini/settings.json: tools.discoveryCommand is not used by Gantry; ignored: ${tools}`,
      `.gemini/settings.json: tools.callCommand is not used by Gantry; ignored: ${tools}`,
      ".gemini/settings.json: tools.exclude is not used by Gantry; ignored: switch tools off with tools.disabled in .agents/settings.json",
      ".gemini/settings.json: model.name is not used by Gantry; ignored: the session's model is --model or `model` in .agents/settings.json (provider:model-id)",
      ".gemini/settings.json: security.auth is not used by Gantry; ignored: Gantry uses the provider's API key from the environment, never a settings file's login",
      ".gemini/settings.json: ui is not used by Gantry; ignored",
      `.qwen/settings.json: toolDiscoveryCommand is not used by Gantry; ignored: ${tools}`,
    ]);
  });

  it("a run says it once on stderr, and gantry config lists it; the user's own ~/.claude/settings.json is not named", async () => {
    ws = await createTempWorkspace({ ".claude/settings.json": JSON.stringify({ model: "claude-opus-4" }) });
    await writeHomeFile(ws, ".claude/settings.json", { model: "opus", apiKeyHelper: "~/key.sh" });
    const env = { HOME: ws.home, GANTRY_TRUST_WORKSPACE: "" };
    const run = await runGantry(
      ["tool", "list_dir", JSON.stringify({ DirectoryPath: "." }), "--workspace", ws.root],
      {
        env,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split("\n").filter((line) => line.includes("not used by Gantry"));
    expect(lines).toEqual([
      "gantry: .claude/settings.json: model is not used by Gantry; ignored: the session's model is --model or `model` in .agents/settings.json (provider:model-id)",
    ]);
    expect(run.stderr).not.toContain("apiKeyHelper");
    const config = await runGantry(["config", "--workspace", ws.root], { env, cwd: ws.root });
    expect(config.code, config.stderr).toBe(0);
    expect(config.stdout).toMatch(
      /Warnings:\n(?:.*\n)*\s+\.claude\/settings\.json: model is not used by Gantry/,
    );
  });
});
