import { z } from "zod";
import { APPROVAL_MODES } from "./modes.js";

/** The `permissions` section, shared by `.agents/settings*.json` and Claude Code's `.claude/settings*.json`. */
export const PermissionsSchema = z.lazy(() =>
  z.looseObject({
    allow: z
      .array(z.string())
      .optional()
      .describe("rules that run without asking, e.g. Bash(npm run test:*)"),
    deny: z.array(z.string()).optional().describe("rules that never run, e.g. Read(./secrets/**)"),
    ask: z.array(z.string()).optional().describe("rules that always ask first, e.g. Bash(git push:*)"),
    defaultMode: z
      .string()
      .optional()
      .describe(
        "default | auto-edit | yolo | plan (Claude Code's acceptEdits, bypassPermissions, dontAsk too)",
      ),
  }),
);

/** `approvalMode` at the top of `.agents/settings.json`; `--approval-mode` wins over it. */
export const ApprovalModeSettingSchema = z.lazy(() =>
  z
    .enum(APPROVAL_MODES)
    .describe("default | auto-edit | yolo | plan; yolo is honoured only from ~/.agents/settings.json"),
);
