import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import type { SubagentHost } from "../../subagents/host.js";
import { summarizeAgent } from "../../subagents/registry.js";
import { defineTool, errorResult, okResult } from "../contract.js";

const ListAgentsParameters = lazySchema(() => z.object({}));

/** Qwen Code's list_agents: the addressable agents of this session, their ids and states. */
export function createListAgentsTool(host: SubagentHost) {
  return defineTool({
    spec: {
      name: "list_agents",
      description:
        "Lists this session's subagents with their task_id, type, state and, when one cannot be continued, its resume_blocked_reason.",
      parameters: ListAgentsParameters,
      safety: "read_only",
      group: "Subagents",
    },
    async execute() {
      const agents = host.agents.list().map(summarizeAgent);
      const text = agents.length === 0 ? "No subagents in this session." : JSON.stringify(agents, null, 2);
      return okResult(text, { count: agents.length, agents });
    },
  });
}

const ManageSubagentsParameters = lazySchema(() =>
  z.object({
    Action: z
      .enum(["list", "kill", "kill_all"])
      .describe("list the subagents, kill some, or kill all of them"),
    ConversationIds: z.array(z.string()).optional().describe("The agent ids to kill (Action kill)"),
  }),
);

/** Seed 000's manage_subagents; killing an agent also kills the foreground agents it started. */
export function createManageSubagentsTool(host: SubagentHost) {
  return defineTool({
    spec: {
      name: "manage_subagents",
      description:
        "Lists this session's subagents or stops them: kill (ConversationIds) or kill_all. A killed agent's " +
        "foreground children die with it, and its worktree is removed.",
      parameters: ManageSubagentsParameters,
      safety: "read_only",
      group: "Subagents",
    },
    async execute(args, ctx) {
      if (args.Action === "list") {
        const agents = host.agents.list().map(summarizeAgent);
        return okResult(
          agents.length === 0 ? "No subagents in this session." : JSON.stringify(agents, null, 2),
          { agents },
        );
      }
      const ids = args.Action === "kill_all" ? undefined : args.ConversationIds;
      if (ids !== undefined && ids.length === 0)
        return errorResult("invalid_arguments", "manage_subagents: kill needs ConversationIds");
      if (ids === undefined && args.Action === "kill")
        return errorResult("invalid_arguments", "manage_subagents: kill needs ConversationIds");
      const unknown = (ids ?? []).filter((id) => !host.agents.get(id));
      if (unknown.length > 0)
        return errorResult("not_found", `manage_subagents: no agent ${unknown.join(", ")} in this session`);
      const why = `killed by ${ctx.agentId}`;
      const stopped = (
        ids === undefined ? host.agents.killAll(why) : ids.flatMap((id) => host.agents.kill(id, why))
      ).sort((a, b) => a.localeCompare(b, "en", { numeric: true }));
      const records = stopped.map((id) => host.agents.get(id)).filter((r) => r !== undefined);
      // wait for the runs to end, so their processes are gone and their worktrees removed
      await Promise.allSettled(records.map((r) => r.settled));
      return okResult(stopped.length === 0 ? "No running agent to kill." : `Killed ${stopped.join(", ")}.`, {
        killed: stopped,
      });
    },
  });
}
