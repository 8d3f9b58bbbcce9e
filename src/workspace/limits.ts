import { z } from "zod";

const positiveInt = (description: string) => z.number().int().positive().describe(description);

const LIMIT_FIELDS = {
  maxOutputChars: positiveInt("largest tool output in characters"),
  maxReadLines: positiveInt("lines per view_file call without a range"),
  maxFileBytes: positiveInt("largest file view_file reads whole, and the edit tools touch"),
  maxSearchFileBytes: positiveInt("files larger than this are skipped (and counted) by grep_search"),
  maxDirEntries: positiveInt("entries per list_dir call"),
  maxMatches: positiveInt("matches per search call"),
};

/** Every limit of the workspace guard, with its default; configurable under "limits" in .agents/settings.json. */
export const LimitsSchema = z.object({
  maxOutputChars: LIMIT_FIELDS.maxOutputChars.default(20_000),
  maxReadLines: LIMIT_FIELDS.maxReadLines.default(2_000),
  maxFileBytes: LIMIT_FIELDS.maxFileBytes.default(10 * 1024 * 1024),
  maxSearchFileBytes: LIMIT_FIELDS.maxSearchFileBytes.default(1024 * 1024),
  maxDirEntries: LIMIT_FIELDS.maxDirEntries.default(500),
  maxMatches: LIMIT_FIELDS.maxMatches.default(100),
});

/**
 * The "limits" section of a settings file: every field optional and without a default, so a file that
 * sets one limit does not reset those an earlier file set (zod 4's `.partial()` would keep the defaults).
 */
export const LimitsSettingsSchema = z.strictObject(LIMIT_FIELDS).partial();

export type Limits = z.infer<typeof LimitsSchema>;

export const DEFAULT_LIMITS: Limits = LimitsSchema.parse({});
