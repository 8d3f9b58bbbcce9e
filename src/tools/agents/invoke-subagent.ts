import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { runInBackground } from "../../subagents/background.js";
import type { SubagentHost } from "../../subagents/host.js";
import { type SpawnRequest, startAgent } from "../../subagents/spawn.js";
import { GENERAL_PURPOSE } from "../../subagents/types.js";
import { checkWorkingDir, findRepoRoot } from "../../subagents/worktree.js";
import { defineTool, errorResult, okResult, type ToolContext } from "../contract.js";
import { awaitForeground } from "./results.js";

const SubagentSpec = lazySchema(() =>
  z.object({
    Prompt: z.string().min(1).describe("The full task for this subagent"),
    Role: z
      .string()
      .optional()
      .describe("The role it plays (e.g. 'security reviewer'); added to its instructions"),
    TypeName: z
      .string()
      .optional()
      .describe('A subagent type (see define_subagent, `gantry agents`); default "general-purpose"'),
    Workspace: z
      .string()
      .optional()
      .describe(
        'Where it works: omitted = this workspace; "worktree" = a fresh git worktree; or a registered worktree path (that agent runs in the foreground: its report is in this result)',
      ),
    Model: z.string().optional().describe("provider:model-id instead of the type's or your own model"),
  }),
);

const InvokeSubagentParameters = lazySchema(() =>
  z.object({
    Subagents: z
      .array(SubagentSpec())
      .min(1)
      .max(10)
      .describe("The subagents to start; they run in parallel"),
  }),
);

/** Seed 000's invoke_subagent: several subagents at once, in parallel, on the agent tool's machinery. */
export function createInvokeSubagentTool(host: SubagentHost) {
  return defineTool({
    spec: {
      name: "invoke_subagent",
      description: host.deps.remote
        ? "Starts several subagents in parallel and waits for them: their reports come back together in this result."
        : "Starts several subagents in parallel. From the top-level agent they run in the background (ids now, a " +
          "notification each when done); from a subagent they run in the foreground and their reports come back together.",
      parameters: InvokeSubagentParameters,
      safety: "read_only",
      group: "Subagents",
    },
    async execute(args, ctx) {
      // agents run elsewhere (a durable session) are always waited for
      const background = ctx.agentId === "main" && !host.deps.remote;
      const requests: SpawnRequest[] = [];
      for (const [index, spec] of args.Subagents.entries()) {
        const request = await toRequest(host, spec, background, ctx);
        if (typeof request === "string")
          return errorResult("invalid_arguments", `invoke_subagent: Subagents.${index}: ${request}`);
        requests.push(request);
      }
      const started = await Promise.all(requests.map((request) => startAgent(host, request)));
      const lines: string[] = [];
      const foreground: Promise<string>[] = [];
      let inBackground = 0;
      for (const [index, result] of started.entries()) {
        if (!result.ok) {
          lines.push(`${index}: not started: ${result.message}`);
          continue;
        }
        // per request: a registered-worktree Workspace runs in the foreground even from the main agent
        if (result.record.background) {
          runInBackground(host, result);
          inBackground++;
          lines.push(`${index}: started ${result.record.id} in the background`);
        } else {
          foreground.push(awaitForeground(host, result, ctx.signal).then((r) => `${index}: ${r.text}`));
        }
      }
      if (inBackground > 0) lines.push("Each sends a notification when it ends; list_agents shows them.");
      const reports = await Promise.all(foreground);
      const ids = started.flatMap((r) => (r.ok ? [r.record.id] : []));
      const text = [lines.join("\n"), ...reports].filter((part) => part !== "").join("\n\n");
      const failed = started.every((r) => !r.ok);
      return failed
        ? errorResult("execution_failed", text, { taskIds: ids })
        : okResult(text, { taskIds: ids });
    },
  });
}

async function toRequest(
  host: SubagentHost,
  spec: z.infer<ReturnType<typeof SubagentSpec>>,
  background: boolean,
  ctx: ToolContext,
): Promise<SpawnRequest | string> {
  const request: SpawnRequest = {
    callerId: ctx.agentId,
    description: spec.Role ?? spec.Prompt.split(/\s+/).slice(0, 5).join(" "),
    prompt: spec.Prompt,
    type: spec.TypeName ?? GENERAL_PURPOSE.name,
    background,
    ...(spec.Role ? { role: spec.Role } : {}),
    ...(spec.Model ? { model: spec.Model } : {}),
  };
  if (spec.Workspace === undefined || spec.Workspace === host.deps.workspace.root) return request;
  if (spec.Workspace === "worktree") return { ...request, isolation: "worktree" };
  const repo = await findRepoRoot(host.deps.workspace.root);
  if (!repo) return "Workspace needs the workspace to be in a git repository";
  const checked = await checkWorkingDir(repo, spec.Workspace, "Workspace");
  return checked.ok ? { ...request, workingDir: checked.path, background: false } : checked.message;
}
