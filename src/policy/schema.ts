import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";
import { APPROVAL_MODES } from "./modes.js";

const permissionKeys = () => ({
  allow: z.array(z.string()).optional().describe("rules that run without asking, e.g. Bash(npm run test:*)"),
  deny: z.array(z.string()).optional().describe("rules that never run, e.g. Read(./secrets/**)"),
  ask: z.array(z.string()).optional().describe("rules that always ask first, e.g. Bash(git push:*)"),
  defaultMode: z
    .string()
    .optional()
    .describe(
      "default | auto-edit | yolo | plan (Claude Code's acceptEdits, bypassPermissions, dontAsk too)",
    ),
  disableBypassPermissionsMode: z
    .literal("disable")
    .optional()
    .describe(
      '"disable": yolo cannot be chosen in this session (flag, settings, /mode); counts from any file',
    ),
  additionalDirectories: z
    .array(z.string())
    .optional()
    .describe(
      "Claude Code's folders beyond the workspace: not supported (Gantry's tools stay in the workspace)",
    ),
});

/**
 * The `permissions` section of `.agents/settings*.json`: an unknown key is a warning (settings.ts).
 * Claude Code's `.claude/settings*.json` are read with ClaudePermissionsSchema, which lets keys of
 * Claude Code's own through.
 */
export const PermissionsSchema = lazySchema(() => z.strictObject(permissionKeys()));
export const ClaudePermissionsSchema = lazySchema(() => z.looseObject(permissionKeys()));

/** `approvalMode` at the top of `.agents/settings.json`; `--approval-mode` wins over it. */
export const ApprovalModeSettingSchema = lazySchema(() =>
  z
    .enum(APPROVAL_MODES)
    .describe("default | auto-edit | yolo | plan; yolo is honoured only from ~/.agents/settings.json"),
);
