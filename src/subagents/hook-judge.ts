import { createConversation } from "../agent/conversation.js";
import { runAgentLoop } from "../agent/loop.js";
import type { AgentJudge } from "../hooks/run-prompt.js";
import { HOOK_AGENT_ID } from "../hooks/runtime.js";
import type { ToolPipeline } from "../tools/pipeline.js";

/** What an agent hook's judge reads with: Claude Code gives it Read, Grep and Glob. */
const JUDGE_TOOLS = new Set(["view_file", "list_dir", "grep_search", "find_by_name"]);
/** Claude Code's limit for an agent hook. */
const JUDGE_TURNS = 50;

/**
 * Runs `type: "agent"` hooks' judges: a conversation of their own, the session's read-only tools through
 * the session's pipeline (its policy, its guards, its command hooks; the pipeline refuses any other
 * tool), under the agent id agent hooks skip, so a judge's reads never start another judge.
 */
export function createAgentJudge(pipeline: () => ToolPipeline | undefined): AgentJudge {
  return async ({ client, system, text, signal }) => {
    const tools = pipeline();
    if (!tools) return { ok: false, failure: "the session's tools are not ready for an agent hook" };
    const result = await runAgentLoop(createConversation(), client, tools, {
      system,
      input: [{ role: "user", text }],
      signal,
      agentId: HOOK_AGENT_ID,
      maxTurns: JUDGE_TURNS,
      allowTool: (name) => JUDGE_TOOLS.has(name),
    });
    if (result.reason === "completed") return { ok: true, text: result.text };
    const why = result.error?.message ?? result.reason.replaceAll("_", " ");
    return { ok: false, failure: `the agent hook's judge did not answer: ${why}` };
  };
}
