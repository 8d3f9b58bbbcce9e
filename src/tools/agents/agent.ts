import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { runInBackground } from "../../subagents/background.js";
import { parseForkTurns, validateForkTools } from "../../subagents/fork.js";
import type { SubagentHost } from "../../subagents/host.js";
import { loadForkProfile } from "../../subagents/profiles.js";
import { type SpawnRequest, startAgent } from "../../subagents/spawn.js";
import { FORK_TYPE, GENERAL_PURPOSE } from "../../subagents/types.js";
import { checkWorkingDir, findRepoRoot } from "../../subagents/worktree.js";
import { defineTool, errorResult, type ToolContext, type ToolResult } from "../contract.js";
import { awaitForeground, backgroundStarted } from "./results.js";

const AgentParameters = lazySchema(() =>
  z.object({
    // "3-5 words" is guidance for the model: any non-empty text is accepted (seed 003)
    description: z
      .string()
      .refine((text) => text.trim() !== "", "must not be empty: a short (3-5 words) description of the task")
      .describe("A short (3-5 words) description of the task, shown to the user and used for tracking"),
    prompt: z
      .string()
      .min(1)
      .describe("The full task for the subagent, with every piece of context it needs to work on its own"),
    subagent_type: z
      .string()
      .optional()
      .describe(
        'The subagent type (see `gantry agents`); default "general-purpose"; "fork" continues your own conversation',
      ),
    fork_turns: z
      .string()
      .optional()
      .describe(
        'Fork only: "all" (default) or a positive integer such as "3" = only the last 3 real user turns',
      ),
    fork_tools: z
      .array(z.string())
      .optional()
      .describe(
        "Fork only: exact tool names or trailing MCP patterns (mcp__github__read_*) the fork may run; [] = none",
      ),
    fork_profile: z
      .string()
      .optional()
      .describe(
        "Fork only: a profile in .agents/fork-profiles/<name>.md or .qwen/fork-profiles/ (not with fork_tools)",
      ),
    run_in_background: z
      .boolean()
      .optional()
      .describe(
        "Default true for a top-level agent (a notification arrives when it ends); false waits for its report",
      ),
    isolation: z
      .enum(["worktree"])
      .optional()
      .describe(
        '"worktree": run a named (non-fork) agent in a git worktree Gantry creates and removes; changes are reported',
      ),
    working_dir: z
      .string()
      .optional()
      .describe(
        "Run a named (non-fork) agent in this existing registered git worktree; foreground only; wins over isolation",
      ),
  }),
);

type AgentArgs = z.infer<ReturnType<typeof AgentParameters>>;

/** Qwen Code's `agent` tool (seed 003, SPEC §6). */
export function createAgentTool(host: SubagentHost) {
  return defineTool({
    spec: {
      name: "agent",
      // read when the model's declarations are built: the agent types are looked up then, not at start
      get description() {
        return describeAgentTool(host);
      },
      parameters: AgentParameters,
      // it changes nothing itself: every call its agents make goes through the same pipeline and gates
      safety: "read_only",
      group: "Subagents",
      aliases: ["Task"],
    },
    async execute(args, ctx) {
      const request = await buildRequest(host, args, ctx);
      if ("error" in request) return request.error;
      const started = await startAgent(host, request.value);
      if (!started.ok) return errorResult(started.code, `agent: ${started.message}`);
      if (request.value.background) {
        runInBackground(host, started);
        return backgroundStarted(started.record);
      }
      return awaitForeground(host, started, ctx.signal);
    },
  });
}

async function buildRequest(
  host: SubagentHost,
  args: AgentArgs,
  ctx: ToolContext,
): Promise<{ value: SpawnRequest } | { error: ToolResult }> {
  const refuse = (message: string) => ({ error: errorResult("invalid_arguments", `agent: ${message}`) });
  const type = args.subagent_type ?? GENERAL_PURPOSE.name;
  const isFork = type === FORK_TYPE;
  const nested = ctx.agentId !== "main";
  if (!isFork) {
    for (const key of ["fork_turns", "fork_tools", "fork_profile"] as const) {
      if (args[key] !== undefined) return refuse(`${key} is only valid with subagent_type "fork"`);
    }
  } else if (args.isolation !== undefined || args.working_dir !== undefined) {
    return refuse("isolation and working_dir are for named agents, not forks");
  }
  if (args.fork_profile !== undefined && args.fork_tools !== undefined) {
    return refuse("fork_profile and fork_tools cannot be combined");
  }
  if (nested && args.run_in_background === true) {
    return refuse(
      "a nested agent cannot run in the background (it could not receive the completion notification)",
    );
  }
  // an agent file may choose its own defaults (Claude Code's `background`, `isolation`)
  const definition = isFork ? undefined : host.catalog.get(type);
  const request: SpawnRequest = {
    callerId: ctx.agentId,
    description: args.description,
    prompt: args.prompt,
    type,
    // agents run elsewhere (a durable session) can only be waited for: there the default is the foreground
    background: !nested && (args.run_in_background ?? definition?.background ?? !host.deps.remote),
  };
  if (args.working_dir !== undefined) {
    if (args.run_in_background === true)
      return refuse("working_dir runs in the foreground; drop run_in_background");
    const repo = await findRepoRoot(host.deps.workspace.root);
    if (!repo) return refuse("working_dir needs the workspace to be in a git repository");
    const checked = await checkWorkingDir(repo, args.working_dir);
    if (!checked.ok) return refuse(checked.message);
    request.workingDir = checked.path;
    request.background = false;
  } else if ((args.isolation ?? definition?.isolation) === "worktree") {
    request.isolation = "worktree";
  }
  if (isFork) {
    const forked = await forkOptions(host, args);
    if ("message" in forked) return refuse(forked.message);
    Object.assign(request, forked);
  }
  return { value: request };
}

async function forkOptions(
  host: SubagentHost,
  args: AgentArgs,
): Promise<Pick<SpawnRequest, "forkTurns" | "forkTools" | "promptHint"> | { message: string }> {
  const turns = parseForkTurns(args.fork_turns);
  if (!turns.ok) return { message: turns.message };
  const canonical = (name: string) => host.pipeline?.registry.lookup(name)?.spec.name;
  if (args.fork_tools !== undefined) {
    const tools = validateForkTools(args.fork_tools, canonical);
    if (!tools.ok) return { message: tools.message };
    return { forkTurns: turns.turns, forkTools: tools.patterns };
  }
  if (args.fork_profile !== undefined) {
    const profile = await loadForkProfile(host.deps.workspace.root, args.fork_profile, canonical);
    if (!profile.ok) return { message: profile.message };
    return {
      forkTurns: turns.turns,
      forkTools: profile.profile.tools,
      ...(profile.profile.promptHint ? { promptHint: profile.profile.promptHint } : {}),
    };
  }
  return { forkTurns: turns.turns };
}

function describeAgentTool(host: SubagentHost): string {
  const types = host.catalog
    .list()
    .map((definition) => `- ${definition.name}: ${definition.description.split("\n")[0]}`)
    .join("\n");
  if (host.deps.remote)
    return (
      "Starts a subagent that works autonomously on a multi-step task with its own tools and a clean context, " +
      "in a copy of this workspace; its file changes come back here. In this durable session agents run in the " +
      "foreground only: its report is this call's result. Subagents cannot ask the user.\n" +
      `Subagent types:\n${types}`
    );
  return (
    "Starts a subagent that works autonomously on a multi-step task with its own tools and a clean context " +
    '(or, with subagent_type "fork", a copy of your conversation). Call it several times in one message to run ' +
    "agents in parallel. Top-level agents run in the background by default: their report arrives as a " +
    "notification on a later turn; use list_agents and send_message to follow up. Subagents cannot ask the user.\n" +
    `Subagent types:\n${types}\n- fork: continues your own conversation (fork_turns, fork_tools, fork_profile)`
  );
}
