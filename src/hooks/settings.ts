import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";

/** The `hooks` section of `.agents/settings.json` (the hooks themselves live in hooks.json and the harnesses' files). */
export const HookSettingsSchema = lazySchema(() =>
  z.strictObject({
    idleNotificationSeconds: z
      .number()
      .positive()
      .optional()
      .describe(
        "interactive sessions: after this many seconds at the prompt, Notification hooks hear that the agent is idle (default 60)",
      ),
  }),
);

export type HookSettings = z.infer<ReturnType<typeof HookSettingsSchema>>;
