import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";

/** The `subagents` section of `.agents/settings.json`. */
export const SubagentSettingsSchema = lazySchema(() =>
  z.strictObject({
    maxDepth: z
      .number()
      .int()
      .min(1)
      .max(5)
      .optional()
      .describe("how deep agents may nest (default 2: a subagent may start subagents, theirs may not)"),
    maxTurns: z.number().int().positive().optional().describe("model turns per subagent run (default 50)"),
    models: z
      .strictObject({
        opus: z.string().optional().describe("provider:model-id for agent files that say model: opus"),
        sonnet: z.string().optional().describe("provider:model-id for agent files that say model: sonnet"),
        haiku: z.string().optional().describe("provider:model-id for agent files that say model: haiku"),
        fast: z
          .string()
          .optional()
          .describe("provider:model-id for agent files that say model: fast (Qwen Code)"),
      })
      .optional()
      .describe("the model each tier an agent file may name stands for"),
  }),
);

export type SubagentSettings = z.infer<ReturnType<typeof SubagentSettingsSchema>>;
