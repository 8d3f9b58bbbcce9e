import type { AgentEvent, TurnUsage } from "../../agent/events.js";
import { artifactLines } from "../../artifacts/format.js";
import { readSessionArtifacts } from "../../artifacts/session-artifacts.js";
import { expandPromptCommand, listPromptCommands, usageOf } from "../../mcp/prompts.js";
import {
  APPROVAL_MODES,
  type ApprovalMode,
  MODE_DESCRIPTIONS,
  parseApprovalMode,
} from "../../policy/modes.js";
import type { CustomCommand } from "../../slash-commands/catalog.js";
import { commandsOf, customCommandPrompt } from "../../slash-commands/run.js";
import type { ToolRegistry } from "../../tools/registry.js";
import type { AgentSession } from "../agent-session.js";
import type { DialogOption } from "./dialog.js";
import { formatDollars, formatTokens, type UsageMeter } from "./usage-meter.js";

/** The REPL's own commands; a line is one when its first word is `/name` with no further slash. */
export const SLASH_COMMANDS: Record<string, string> = {
  "/help": "this list",
  "/model": "show the model, or switch: /model provider:model-id",
  "/mode": "show or change the approval mode (also Shift-Tab): /mode auto-edit",
  "/cost": "tokens used in this session and, where the price is known, what they cost",
  "/compact": "summarise the older turns now, to free the context window",
  "/clear": "start over in a new session (this one stays saved for /resume)",
  "/resume": "continue an earlier session of this workspace: /resume [id]",
  "/tools": "the tools the agent can use",
  "/permissions": "the approval mode, permission rules and this session's grants",
  "/reload-hooks": "read the hook files again (changes to them count only after this)",
  "/mcp": "the MCP servers, their state and their prompts (/mcp__<server>__<prompt> args… runs one)",
  "/artifacts": "the plans, reports and images this session saved",
  "/exit": "end the session (also Ctrl-D, or Ctrl-C at an empty prompt)",
};

export function isSlashCommand(line: string): boolean {
  // `/git:commit`: a custom command's namespace
  return /^\/[A-Za-z][\w.:-]*(\s|$)/.test(line.trim());
}

/** `prompt`: an MCP prompt's text, to run as the user's turn. */
export type SlashOutcome = "exit" | "done" | { prompt: string };

/** What a command may use besides the session; the terminal UI adds pickers, plain lines do without. */
export interface CommandContext {
  agent: AgentSession;
  print(text: string): void;
  usage: UsageMeter;
  signal: AbortSignal;
  onEvent(event: AgentEvent): void;
  /** A picker; without one, commands list the choices and take them as an argument. */
  pick?(title: string, options: DialogOption[]): Promise<string | undefined>;
  /** After /clear and /resume, so the UI can show the conversation it now continues. */
  conversationChanged(how: "cleared" | "resumed"): void;
}

/** Runs a slash command, printing through `print`; says whether the session should end. */
export async function runSlashCommand(line: string, context: CommandContext): Promise<SlashOutcome> {
  const [name = "", ...rest] = line.trim().split(/\s+/);
  const argument = rest.join(" ");
  const { agent, print } = context;
  switch (name) {
    case "/exit":
    case "/quit":
      return "exit";
    case "/help":
      print(helpText(commandsOf(sessionOf(agent)).commands));
      break;
    case "/tools":
      print(toolTable(agent.session.registry));
      break;
    case "/permissions":
      print((await agent.session.pipeline.run({ name: "list_permissions", args: {} })).text);
      break;
    case "/reload-hooks":
      print(reloadHooks(agent));
      break;
    case "/model":
      print(switchModel(agent, argument));
      break;
    case "/mode":
      await changeMode(context, argument);
      break;
    case "/cost":
      print(costReport(agent, context.usage));
      break;
    case "/compact": {
      const outcome = await agent.compact(context.signal, context.onEvent);
      if (!outcome.ok) print(outcome.message);
      break;
    }
    case "/clear":
      agent.startOver();
      context.usage.reset();
      context.conversationChanged("cleared");
      print(`New session ${agent.writer.id}; the earlier one is saved (/resume lists it).`);
      break;
    case "/resume":
      await resume(context, argument);
      break;
    case "/artifacts":
      print(artifactsList(agent));
      break;
    case "/mcp":
      print(await mcpOverview(agent, context.signal));
      break;
    default: {
      if (!name.startsWith("/mcp__")) {
        const custom = await customCommandPrompt(line, sessionOf(agent), context.signal);
        if (custom?.ok) {
          for (const note of custom.notes) print(note);
          return { prompt: custom.text };
        }
        print(custom ? custom.error : `unknown command ${name}; /help lists the commands`);
        break;
      }
      const expanded = await expandPromptCommand(agent.session.mcp, line, context.signal);
      if ("text" in expanded) return { prompt: expanded.text };
      print(expanded.error);
    }
  }
  return "done";
}

/** The artifacts of the session file in use (after /clear or /resume, that session's), from its log. */
function artifactsList(agent: AgentSession): string {
  const artifacts = readSessionArtifacts(agent.writer.file);
  return artifacts.length > 0
    ? artifactLines(artifacts, agent.session.workspace.root).join("\n")
    : "no artifacts in this session yet";
}

async function mcpOverview(agent: AgentSession, signal: AbortSignal): Promise<string> {
  const connections = agent.session.mcp.connections;
  if (connections.length === 0) return "No MCP servers are configured (gantry mcp add, or .mcp.json).";
  const lines = connections.map((c) => {
    const state = c.state === "ready" ? `connected, ${c.tools.length} tools` : c.state;
    const problem = c.problem ? `: ${c.problem.split("\n")[0]}` : "";
    return `  ${c.config.name}  ${state}${c.config.subagentOnly ? " (subagents only)" : ""}${problem}`;
  });
  const prompts = await listPromptCommands(agent.session.mcp, signal);
  if (prompts.length > 0)
    lines.push("Prompts:", ...prompts.map((p) => `  ${usageOf(p)}  ${p.prompt.description ?? ""}`.trimEnd()));
  return lines.join("\n");
}

function reloadHooks(agent: AgentSession): string {
  try {
    const reloaded = agent.session.reloadHooks();
    const groups = reloaded.groups.filter((group) => group.enabled);
    const names = groups.map((group) => group.name).join(", ");
    const ignored = reloaded.ignored.map((line) => `\n  ${line}`).join("");
    return `hooks reloaded: ${groups.length} enabled ${groups.length === 1 ? "group" : "groups"}${names ? ` (${names})` : ""}${ignored}`;
  } catch (cause) {
    return `hooks not reloaded, the earlier ones still apply: ${(cause as Error).message}`;
  }
}

function switchModel(agent: AgentSession, spec: string): string {
  if (spec === "")
    return `The model is ${agent.model.id} (context window ${formatTokens(agent.model.contextWindow)} tokens). Switch with /model provider:model-id, e.g. /model anthropic:claude-sonnet-4-5.`;
  const switched = agent.switchModel(spec);
  if (!switched.ok) return `The model stays ${agent.model.id}: ${switched.message}`;
  return `From the next turn on the model is ${agent.model.id} (context window ${formatTokens(agent.model.contextWindow)} tokens).`;
}

/** Sets the approval mode; the user's choice in this session, like `--approval-mode`. */
export function setApprovalMode(agent: AgentSession, mode: ApprovalMode): string {
  try {
    agent.session.permissions.setMode(mode, "set in this session (/mode or Shift-Tab)");
  } catch (cause) {
    return `The approval mode stays ${agent.session.permissions.mode ?? "none"}: ${(cause as Error).message}.`;
  }
  return `Approval mode: ${mode} (${MODE_DESCRIPTIONS[mode]}).`;
}

async function changeMode(context: CommandContext, argument: string): Promise<void> {
  const { agent, print } = context;
  let wanted = argument;
  if (wanted === "" && context.pick) {
    const current = agent.session.permissions.mode;
    wanted =
      (await context.pick(
        "Approval mode",
        choosableModes(agent).map((mode) => ({
          label: mode === current ? `${mode} (now)` : mode,
          value: mode,
          detail: MODE_DESCRIPTIONS[mode],
        })),
      )) ?? "";
    if (wanted === "") return;
  }
  if (wanted === "") {
    const current = agent.session.permissions.mode;
    const list = choosableModes(agent)
      .map((mode) => `  ${mode.padEnd(9)}  ${MODE_DESCRIPTIONS[mode]}`)
      .join("\n");
    return print(`Approval mode: ${current ?? "none"}. Change it with /mode MODE:\n${list}`);
  }
  const mode = parseApprovalMode(wanted);
  if (!mode) return print(`/mode takes ${APPROVAL_MODES.join(", ")}, not "${wanted}"`);
  print(setApprovalMode(agent, mode));
}

/** The modes the user may switch to: yolo is left out when a settings file switched it off. */
function choosableModes(agent: AgentSession): readonly ApprovalMode[] {
  return agent.session.permissions.yoloDisabledBy
    ? APPROVAL_MODES.filter((mode) => mode !== "yolo")
    : APPROVAL_MODES;
}

/** `1000 in (800 from the cache) · 100 out`. */
function tokensLine(used: TurnUsage): string {
  const cached = used.cacheReadTokens ? ` (${used.cacheReadTokens} from the cache)` : "";
  return `${used.inputTokens} in${cached} · ${used.outputTokens} out`;
}

function costReport(agent: AgentSession, usage: UsageMeter): string {
  const total = usage.total();
  const lines = [`Tokens this session: ${tokensLine(total)}.`];
  if (usage.byModel().size > 1)
    for (const [model, used] of usage.byModel()) lines.push(`  ${model}: ${tokensLine(used)}`);
  const cost = usage.cost();
  if (cost)
    lines.push(
      `Cost: about ${formatDollars(cost.dollars)} at list prices${cost.partial ? " (some models have no known price)" : ""}.`,
    );
  else lines.push(`Cost: unknown (no price is known for ${agent.model.id}).`);
  const share = Math.round((usage.contextTokens / agent.model.contextWindow) * 100);
  lines.push(
    `Context: ${formatTokens(usage.contextTokens)} of ${formatTokens(agent.model.contextWindow)} tokens (${share}%).`,
  );
  return lines.join("\n");
}

async function resume(context: CommandContext, argument: string): Promise<void> {
  const { agent, print } = context;
  const others = agent.sessions().filter((summary) => summary.id !== agent.writer.id);
  let id = argument;
  if (id === "" && others.length === 0) return print("No other session of this workspace to resume.");
  if (id === "" && context.pick) {
    const options = others.slice(0, 9).map((summary) => ({
      label: summary.firstPrompt === "" ? "(no prompt)" : truncate(summary.firstPrompt, 60),
      value: summary.id,
      detail: `${summary.id} · ${summary.prompts} prompt${summary.prompts === 1 ? "" : "s"} · ${new Date(summary.modifiedAt).toLocaleString()}`,
    }));
    id = (await context.pick("Resume a session", options)) ?? "";
    if (id === "") return;
  }
  if (id === "") {
    const list = others
      .slice(0, 20)
      .map((summary) => `  ${summary.id}  ${truncate(summary.firstPrompt || "(no prompt)", 60)}`);
    return print(`Sessions of this workspace (resume with /resume ID):\n${list.join("\n")}`);
  }
  const resumed = agent.resume(id);
  if (!resumed.ok) return print(resumed.message);
  context.usage.reset();
  context.conversationChanged("resumed");
  for (const problem of resumed.problems)
    print(`line ${problem.line} of the session file: ${problem.message}`);
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function helpText(custom: readonly CustomCommand[] = []): string {
  const width = Math.max(...Object.keys(SLASH_COMMANDS).map((name) => name.length));
  const lines = [
    "Type a request and press Enter; the agent works on it in this workspace.",
    ...Object.entries(SLASH_COMMANDS).map(([name, what]) => `  ${name.padEnd(width)}  ${what}`),
  ];
  if (custom.length > 0) {
    lines.push("Custom commands (.agents/commands, .claude/commands, .gemini/commands, .qwen/commands):");
    for (const command of custom) {
      const usage = `/${command.name}${command.argumentHint ? ` ${command.argumentHint}` : ""}`;
      lines.push(`  ${usage}  ${command.description ?? ""}`.trimEnd());
    }
  }
  lines.push("Ctrl-C (or Esc) during a turn stops the turn and returns to the prompt.");
  return lines.join("\n");
}

function sessionOf(agent: AgentSession) {
  const { workspace, pipeline, trust } = agent.session;
  return { root: workspace.root, pipeline, trust };
}

/** Enabled tools, one per line: name, display group, safety level. */
export function toolTable(registry: ToolRegistry): string {
  const rows = registry
    .all()
    .filter((tool) => registry.isEnabled(tool.spec.name))
    .map((tool) => [tool.spec.name, tool.spec.group, tool.spec.safety]);
  const widths = [0, 1].map((column) => Math.max(...rows.map((row) => (row[column] as string).length)));
  return rows
    .map(
      (row) => `  ${row[0]?.padEnd(widths[0] as number)}  ${row[1]?.padEnd(widths[1] as number)}  ${row[2]}`,
    )
    .join("\n");
}
