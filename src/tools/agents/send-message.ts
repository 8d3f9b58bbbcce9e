import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { messageAgent } from "../../subagents/background.js";
import type { SubagentHost } from "../../subagents/host.js";
import { defineTool, errorResult, okResult } from "../contract.js";
import { foregroundResult } from "./results.js";

/** Both shapes in one tool: Qwen Code's (task_id, message) and seed 000's (Recipient, Message). */
const SendMessageParameters = lazySchema(() =>
  z
    .object({
      task_id: z.string().optional().describe("The agent's id (from the agent tool or list_agents)"),
      message: z.string().optional().describe("The follow-up instruction or question"),
      Recipient: z.string().optional().describe("Same as task_id (seed 000 name)"),
      Message: z.string().optional().describe("Same as message (seed 000 name)"),
    })
    .refine((a) => (a.task_id ?? a.Recipient) !== undefined, {
      message: "task_id (or Recipient) is required",
      path: ["task_id"],
    })
    .refine((a) => (a.message ?? a.Message)?.trim(), {
      message: "message (or Message) is required",
      path: ["message"],
    }),
);

export function createSendMessageTool(host: SubagentHost) {
  return defineTool({
    spec: {
      name: "send_message",
      description:
        "Sends a follow-up to a subagent by id: a running agent reads it at its next tool round; a paused or " +
        "finished one is revived from its saved transcript and reports again: by notification, or in this " +
        "result when it runs in the foreground (a nested caller's agent, or one pinned to a working_dir). " +
        "Returns resume_blocked_reason when the agent cannot continue.",
      parameters: SendMessageParameters,
      safety: "read_only",
      group: "Subagents",
    },
    async execute(args, ctx) {
      const id = (args.task_id ?? args.Recipient) as string;
      const text = (args.message ?? args.Message) as string;
      const outcome = await messageAgent(host, id, text, ctx.agentId);
      switch (outcome.kind) {
        case "unknown":
          return errorResult(
            "not_found",
            `send_message: no agent "${id}" in this session; list_agents shows the ids.`,
          );
        case "blocked":
          return errorResult("unavailable", `send_message: agent ${id} cannot continue: ${outcome.reason}`, {
            taskId: id,
            resume_blocked_reason: outcome.reason,
          });
        case "delivered":
          return okResult(`Delivered to running agent ${id}; it reads the message at its next tool round.`, {
            taskId: id,
            state: "running",
          });
        case "resumed":
          if (outcome.background) {
            return okResult(`Agent ${id} resumed with your message; its report arrives as a notification.`, {
              taskId: id,
              state: "running",
            });
          }
          return foregroundResult(await outcome.finished);
      }
    },
  });
}
