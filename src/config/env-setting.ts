import { z } from "zod";
import { lazySchema } from "./lazy-schema.js";

/**
 * `env`: variables for the session's commands and hooks (Claude Code's `env` in `.claude/settings*.json`
 * reads the same). Only the home's and a trusted workspace's count (config/key-rules.ts): a repository's
 * PATH, BASH_ENV or LD_PRELOAD would run its code in every command.
 */
export const EnvSettingSchema = lazySchema(() =>
  z
    .record(
      z
        .string()
        .regex(
          /^[A-Za-z_][A-Za-z0-9_]*$/,
          "a variable name is letters, digits and _, not starting with a digit",
        ),
      z.string(),
    )
    .describe('variables for the session\'s commands and hooks, e.g. {"NODE_ENV": "test"}'),
);
