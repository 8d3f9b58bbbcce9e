import { z } from "zod";

/** What `gantry submit` (or any POST to the session's `prompt` handler) asks a session to do. */
export const PromptInputSchema = z.object({
  prompt: z.string().trim().min(1).describe("the request for the agent"),
  repo: z
    .string()
    .min(1)
    .optional()
    .describe(
      "git repository URL or absolute path, or a shared folder; required for a session's first prompt",
    ),
  ref: z
    .string()
    .min(1)
    .optional()
    .describe("branch, tag or commit to check out (default: the repository's HEAD)"),
  model: z.string().min(1).optional().describe("provider:model-id; default: the worker's settings"),
  baseUrl: z.string().url().optional().describe("the provider's API base URL"),
  approvalMode: z.enum(["default", "auto-edit", "yolo", "plan"]).optional(),
  trust: z
    .boolean()
    .optional()
    .describe("the submitter trusts the repository's configuration (hooks, allow rules, model settings)"),
  maxTurns: z.number().int().positive().optional(),
});

export type PromptInput = z.infer<typeof PromptInputSchema>;
