import type { z } from "zod";

/**
 * A module's schema, built at its first use and kept: `const SettingsSchema = lazySchema(() =>
 * z.object(…))`, then `SettingsSchema().safeParse(…)` where it is wanted. Nothing is built when the module
 * loads: a zod schema (z.lazy's wrapper too) costs several microseconds to make, and a one-call `gantry
 * tool` loads about fifty of them, of which it uses two or three.
 */
export function lazySchema<T extends z.ZodType>(build: () => T): () => T {
  let schema: T | undefined;
  return () => {
    schema ??= build();
    return schema;
  };
}
