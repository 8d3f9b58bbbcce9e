import { z } from "zod";
import { HookSettingsSchema } from "../hooks/settings.js";
import { ApprovalModeSettingSchema, PermissionsSchema } from "../policy/schema.js";
import { SubagentSettingsSchema } from "../subagents/settings.js";
import { SandboxSettingsSchema } from "../tools/exec/sandbox-settings.js";
import { ExecSettingsSchema } from "../tools/exec/settings.js";
import { ImageSettingsSchema } from "../tools/images/settings.js";
import { WebSettingsSchema } from "../tools/web/settings.js";
import { LimitsSettingsSchema } from "../workspace/limits.js";
import { SecretsSchema } from "../workspace/secrets.js";
import { didYouMean } from "./did-you-mean.js";
import { dropInvalid, UNTRUSTED_BROKEN } from "./drop-invalid.js";
import { EnvSettingSchema } from "./env-setting.js";
import { lazySchema } from "./lazy-schema.js";
import { readIfPresent } from "./read-if-present.js";

// other settings readers (src/mcp/sources.ts) name unknown keys the same way
export { didYouMean };

/**
 * `.agents/settings.json`, in the user's home and in the workspace; how the two combine is
 * src/config/combine.ts (by the key rules of key-rules.ts). Each concern owns its section's schema;
 * an unknown key is named with a did-you-mean and left out, never silently ignored.
 */
export const SettingsSchema = lazySchema(() =>
  z.strictObject({
    limits: LimitsSettingsSchema().optional(),
    secrets: SecretsSchema().optional(),
    tools: z
      .strictObject({
        disabled: z.array(z.string()).optional().describe("tool names (or aliases) switched off"),
        only: z
          .array(z.string())
          .optional()
          .describe("the only tools the model gets (names or aliases); the others are switched off"),
        compact: z
          .boolean()
          .optional()
          .describe("short tool declarations for small local models: first sentences, no field descriptions"),
      })
      .optional(),
    /** Lets the agent's own edit and command tools change .agents/hooks.json, settings files and the like. */
    allowAgentConfigEdits: z.boolean().optional(),
    /** Permission rules; rules of every settings file are combined (src/policy/load.ts), not replaced. */
    permissions: PermissionsSchema().optional(),
    approvalMode: ApprovalModeSettingSchema().optional(),
    exec: ExecSettingsSchema().optional(),
    sandbox: SandboxSettingsSchema().optional(),
    search: z
      .strictObject({
        engine: z
          .enum(["auto", "ripgrep", "node"])
          .optional()
          .describe(
            "grep_search engine: auto (ripgrep when on PATH), or force one; GANTRY_SEARCH_ENGINE overrides",
          ),
      })
      .optional(),
    web: WebSettingsSchema().optional(),
    images: ImageSettingsSchema().optional(),
    model: z.string().optional().describe("the model as provider:model-id, e.g. anthropic:claude-sonnet-4-5"),
    baseUrl: z.string().optional().describe("the provider's API base URL (required for openai-compatible)"),
    contextWindow: z.number().int().positive().optional().describe("the model's context window in tokens"),
    maxTurns: z.number().int().positive().optional().describe("model turns a headless run may take"),
    env: EnvSettingSchema().optional(),
    subagents: SubagentSettingsSchema().optional(),
    hooks: HookSettingsSchema().optional(),
    /** MCP servers by name; read with the other files that hold them by src/mcp/sources.ts, not merged here. */
    mcpServers: z.record(z.string(), z.unknown()).optional(),
  }),
);

export type Settings = z.infer<ReturnType<typeof SettingsSchema>>;

/**
 * Parses one settings file. A value of the wrong type is an error naming the file and the key, unless
 * trust does not cover the file (`untrusted`): then it is left out with a warning naming it (a
 * repository must not be able to stop Gantry; an untrusted file's keys only narrow, so leaving one out
 * never widens). An unknown key is a warning with the nearest known name (`"modle"`: did you mean
 * "model"?) and is left out.
 */
export function parseSettingsFile(
  file: string,
  raw: unknown,
  options: { untrusted?: boolean } = {},
): { settings: Settings; warnings: string[] } {
  const warnings: string[] = [];
  let input = raw;
  // each round leaves out what the last found wrong; a value fixed may uncover another below it
  for (let attempt = 0; attempt < 8; attempt++) {
    const parsed = SettingsSchema().safeParse(input);
    if (parsed.success) return { settings: parsed.data, warnings };
    const unknown = parsed.error.issues.filter((issue) => issue.code === "unrecognized_keys");
    const others = parsed.error.issues.filter((issue) => issue.code !== "unrecognized_keys");
    if (others.length > 0 && !options.untrusted) {
      const problems = others.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join("; ");
      throw new Error(`invalid settings in ${file}: ${problems}`);
    }
    input = structuredClone(input);
    for (const issue of unknown) {
      const container = objectAt(input, issue.path);
      for (const key of issue.keys) {
        warnings.push(
          `${file}: unknown setting "${[...issue.path, key].join(".")}"${didYouMean(key, knownKeysAt(issue.path))}; ignored`,
        );
        if (container) delete container[key];
      }
    }
    if (others.length === 0) continue;
    const dropped = dropInvalid(input, others, file);
    warnings.push(...dropped.warnings);
    if (dropped.whole) return { settings: {}, warnings };
    input = dropped.input;
  }
  if (options.untrusted) {
    warnings.push(`${file}: its settings could not be read; ${UNTRUSTED_BROKEN}`);
    return { settings: {}, warnings };
  }
  throw new Error(`invalid settings in ${file}`);
}

/** Reads a JSON file; undefined when it does not exist, an error naming the file when it cannot be read or is not JSON. */
export function readJsonFile(file: string): unknown {
  return readJsonFileWithBytes(file)?.raw;
}

/**
 * A JSON file as `readJsonFile` reads it, with the bytes parsed: a workspace file's trust is judged on
 * these (WorkspaceTrust.file), not on a second read the file may have changed for.
 */
export function readJsonFileWithBytes(file: string): { raw: unknown; bytes: Buffer } | undefined {
  const read = readJsonOrProblem(file);
  if (read && "problem" in read) throw new Error(read.fatal);
  return read;
}

/** A JSON file that could not be used, and why: `problem` follows its name in a warning, `fatal` is the error. */
export interface JsonProblem {
  problem: string;
  fatal: string;
  /** What was read when it is not JSON (none when it cannot be read): its trust is judged on these. */
  bytes?: Buffer;
}

/**
 * A JSON file with its bytes, or why it cannot be used, for a loader that decides by the file's trust
 * whether that stops the session (a file the user vouched for) or is a warning (a workspace's file
 * trust does not cover: a repository must not be able to stop Gantry). Undefined when it does not exist.
 */
export function readJsonOrProblem(file: string): { raw: unknown; bytes: Buffer } | JsonProblem | undefined {
  let bytes: Buffer | undefined;
  try {
    bytes = readIfPresent(file);
  } catch (cause) {
    const message = (cause as Error).message;
    return { problem: `cannot be read: ${message}`, fatal: `cannot read ${file}: ${message}` };
  }
  if (bytes === undefined) return undefined;
  try {
    return { raw: JSON.parse(bytes.toString("utf8")), bytes };
  } catch (cause) {
    const message = (cause as Error).message;
    return {
      problem: `is not valid JSON: ${message}`,
      fatal: `${file} is not valid JSON: ${message}`,
      bytes,
    };
  }
}

function objectAt(root: unknown, at: readonly PropertyKey[]): Record<string, unknown> | undefined {
  let current = root;
  for (const key of at) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return typeof current === "object" && current !== null ? (current as Record<string, unknown>) : undefined;
}

/** The key names the schema knows at a path of the settings object (through optional, preprocess and lazy). */
function knownKeysAt(at: readonly PropertyKey[]): string[] {
  let schema: unknown = SettingsSchema();
  for (const key of at) {
    const shape = shapeOf(schema);
    if (!shape) return [];
    schema = shape[String(key)];
  }
  return Object.keys(shapeOf(schema) ?? {});
}

function shapeOf(schema: unknown): Record<string, unknown> | undefined {
  let current = schema as
    | { def?: { type?: string; innerType?: unknown; out?: unknown; shape?: unknown; getter?: () => unknown } }
    | undefined;
  for (let depth = 0; current?.def && depth < 8; depth++) {
    const def = current.def;
    if (def.type === "object") return def.shape as Record<string, unknown>;
    current = (def.innerType ?? def.out ?? def.getter?.()) as typeof current;
  }
  return undefined;
}
