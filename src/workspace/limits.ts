import { z } from "zod";

/** Every limit of the workspace guard, with its default; configurable under "limits" in .agents/settings.json. */
export const LimitsSchema = z.object({
  maxOutputChars: z.number().int().positive().default(20_000).describe("largest tool output in characters"),
  maxReadLines: z
    .number()
    .int()
    .positive()
    .default(2_000)
    .describe("lines per view_file call without a range"),
  maxFileBytes: z
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024)
    .describe("largest file view_file reads whole, and the edit tools touch"),
  maxSearchFileBytes: z
    .number()
    .int()
    .positive()
    .default(1024 * 1024)
    .describe("files larger than this are skipped (and counted) by grep_search"),
  maxDirEntries: z.number().int().positive().default(500).describe("entries per list_dir call"),
  maxMatches: z.number().int().positive().default(100).describe("matches per search call"),
});

export type Limits = z.infer<typeof LimitsSchema>;

export const DEFAULT_LIMITS: Limits = LimitsSchema.parse({});
