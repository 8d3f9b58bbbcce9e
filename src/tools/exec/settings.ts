import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";

/** The `exec` section of .agents/settings.json: how commands are timed and ended. */
export const ExecSettingsSchema = lazySchema(() =>
  z.strictObject({
    timeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "foreground limit of a run_command call in ms (default 120000); past it the command is ended",
      ),
    backgroundTimeoutMs: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("limit of a background task in ms; 0 or absent = it runs until killed or the session ends"),
    killGraceMs: z
      .number()
      .int()
      .nonnegative()
      .optional()
      .describe("time between SIGTERM and SIGKILL when a command is ended (default 2000)"),
    isolation: z
      .enum(["auto", "pid-namespace", "process-group"])
      .optional()
      .describe(
        "how a command's processes are held together; auto = a PID namespace when bwrap can make one",
      ),
    conditionPollSeconds: z
      .number()
      .positive()
      .optional()
      .describe("how often a schedule's TimerCondition is re-run while it fails (default 5)"),
    conditionTimeoutSeconds: z
      .number()
      .positive()
      .optional()
      .describe("longest one run of a TimerCondition may take (default 30)"),
  }),
);
export type ExecSettings = z.infer<ReturnType<typeof ExecSettingsSchema>>;

export interface ResolvedExecSettings {
  timeoutMs: number;
  backgroundTimeoutMs: number;
  killGraceMs: number;
  isolation: "auto" | "pid-namespace" | "process-group";
  conditionPollMs: number;
  conditionTimeoutMs: number;
}

export function resolveExecSettings(settings: ExecSettings = {}): ResolvedExecSettings {
  return {
    timeoutMs: settings.timeoutMs ?? 120_000,
    backgroundTimeoutMs: settings.backgroundTimeoutMs ?? 0,
    killGraceMs: settings.killGraceMs ?? 2_000,
    isolation: settings.isolation ?? "auto",
    conditionPollMs: Math.round((settings.conditionPollSeconds ?? 5) * 1000),
    conditionTimeoutMs: Math.round((settings.conditionTimeoutSeconds ?? 30) * 1000),
  };
}
