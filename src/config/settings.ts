import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";
import { ApprovalModeSettingSchema, PermissionsSchema } from "../policy/schema.js";
import { SubagentSettingsSchema } from "../subagents/settings.js";
import { SandboxSettingsSchema } from "../tools/exec/sandbox-settings.js";
import { ExecSettingsSchema } from "../tools/exec/settings.js";
import { WebSettingsSchema } from "../tools/web/settings.js";
import { LimitsSettingsSchema } from "../workspace/limits.js";
import { SecretsSchema } from "../workspace/secrets.js";

/**
 * `.agents/settings.json`, from the user's home and then the workspace (the workspace wins, key by key).
 * Each concern owns its section's schema; unknown top-level keys are kept for later concerns.
 */
export const SettingsSchema = z.looseObject({
  limits: LimitsSettingsSchema.optional(),
  secrets: SecretsSchema.optional(),
  tools: z
    .object({
      disabled: z.array(z.string()).optional().describe("tool names (or aliases) switched off"),
    })
    .optional(),
  /** Lets the agent's own edit and command tools change .agents/hooks.json, settings files and the like. */
  allowAgentConfigEdits: z.boolean().optional(),
  /** Permission rules; rules of every settings file are combined (src/policy/load.ts), not replaced. */
  permissions: PermissionsSchema.optional(),
  approvalMode: ApprovalModeSettingSchema.optional(),
  exec: ExecSettingsSchema.optional(),
  sandbox: SandboxSettingsSchema.optional(),
  search: z
    .object({
      engine: z
        .enum(["auto", "ripgrep", "node"])
        .optional()
        .describe(
          "grep_search engine: auto (ripgrep when on PATH), or force one; GANTRY_SEARCH_ENGINE overrides",
        ),
    })
    .optional(),
  web: WebSettingsSchema.optional(),
  model: z.string().optional().describe("the model as provider:model-id, e.g. anthropic:claude-sonnet-4-5"),
  baseUrl: z.string().optional().describe("the provider's API base URL (required for openai-compatible)"),
  contextWindow: z.number().int().positive().optional().describe("the model's context window in tokens"),
  maxTurns: z.number().int().positive().optional().describe("model turns a headless run may take"),
  subagents: SubagentSettingsSchema.optional(),
});

export type Settings = z.infer<typeof SettingsSchema>;

export interface SettingsSource {
  file: string;
  settings: Settings;
}

export function settingsFiles(workspaceRoot: string, home = homedir()): string[] {
  const files = [
    path.join(home, ".agents", "settings.json"),
    path.join(workspaceRoot, ".agents", "settings.json"),
  ];
  return [...new Set(files)];
}

/** Loads and merges the settings files; a broken file is an error naming the file and the problem. */
export function loadSettings(workspaceRoot: string, home = homedir()): Settings {
  let merged: Record<string, unknown> = {};
  for (const file of settingsFiles(workspaceRoot, home)) {
    const raw = readJsonFile(file);
    if (raw === undefined) continue;
    const parsed = SettingsSchema.safeParse(raw);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`)
        .join("; ");
      throw new Error(`invalid settings in ${file}: ${problems}`);
    }
    merged = mergeSettings(merged, parsed.data);
  }
  return merged as Settings;
}

/** Reads a JSON file; undefined when it does not exist, an error naming the file when it is not JSON. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new Error(`cannot read ${file}: ${(cause as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new Error(`${file} is not valid JSON: ${(cause as Error).message}`);
  }
}

/** Objects merge key by key; arrays and scalars from the later file replace the earlier ones. */
export function mergeSettings(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = result[key];
    result[key] = isPlainObject(current) && isPlainObject(value) ? mergeSettings(current, value) : value;
  }
  return result;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
