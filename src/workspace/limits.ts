import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";

const positiveInt = (description: string) => z.number().int().positive().describe(description);

const limitFields = () => ({
  maxOutputChars: positiveInt("largest tool output in characters"),
  maxReadLines: positiveInt("lines per view_file call without a range"),
  maxFileBytes: positiveInt("largest file view_file reads whole, and the edit tools touch"),
  maxSearchFileBytes: positiveInt("files larger than this are skipped (and counted) by grep_search"),
  maxDirEntries: positiveInt("entries per list_dir call"),
  maxMatches: positiveInt("matches per search call"),
});

/** Each limit's default (a literal: parsing `{}` at start-up cost several ms of zod's first use). */
export const DEFAULT_LIMITS = {
  maxOutputChars: 20_000,
  maxReadLines: 2_000,
  maxFileBytes: 10 * 1024 * 1024,
  maxSearchFileBytes: 1024 * 1024,
  maxDirEntries: 500,
  maxMatches: 100,
} as const satisfies Record<keyof ReturnType<typeof limitFields>, number>;

/** Every limit of the workspace guard, with its default; configurable under "limits" in .agents/settings.json. */
export const LimitsSchema = lazySchema(() => {
  const fields = limitFields();
  return z.object({
    maxOutputChars: fields.maxOutputChars.default(DEFAULT_LIMITS.maxOutputChars),
    maxReadLines: fields.maxReadLines.default(DEFAULT_LIMITS.maxReadLines),
    maxFileBytes: fields.maxFileBytes.default(DEFAULT_LIMITS.maxFileBytes),
    maxSearchFileBytes: fields.maxSearchFileBytes.default(DEFAULT_LIMITS.maxSearchFileBytes),
    maxDirEntries: fields.maxDirEntries.default(DEFAULT_LIMITS.maxDirEntries),
    maxMatches: fields.maxMatches.default(DEFAULT_LIMITS.maxMatches),
  });
});

/**
 * The "limits" section of a settings file: every field optional and without a default, so a file that
 * sets one limit does not reset those an earlier file set (zod 4's `.partial()` would keep the defaults).
 */
export const LimitsSettingsSchema = lazySchema(() => z.strictObject(limitFields()).partial());

export type Limits = z.infer<ReturnType<typeof LimitsSchema>>;
