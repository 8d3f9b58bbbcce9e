import path from "node:path";
import { z } from "zod";
import { dropInvalid } from "./drop-invalid.js";
import { EnvSettingSchema } from "./env-setting.js";
import { unusedKeyNotices } from "./foreign-keys.js";
import { lazySchema } from "./lazy-schema.js";

/**
 * The `sandbox` section of Claude Code's `.claude/settings.json` and `.claude/settings.local.json`,
 * read as Gantry's own `sandbox` keys so a repository set up for Claude Code is sandboxed the same way.
 * What Gantry's sandbox has no equivalent for is named and left out, never silently dropped (most of
 * it loosens: commands that skip the sandbox, sockets, a weaker nested sandbox). The files' `env` is
 * Gantry's `env` as it is. Their other keys no loader of Gantry reads (`apiKeyHelper`, `model`) are
 * named the same way (config/foreign-keys.ts).
 */
const ClaudeSandboxSchema = lazySchema(() =>
  z.looseObject({
    enabled: z.boolean().optional(),
    network: z
      .looseObject({
        allowedDomains: z.array(z.string()).optional(),
        deniedDomains: z.array(z.string()).optional(),
      })
      .optional(),
    filesystem: z
      .looseObject({
        allowWrite: z.array(z.string()).optional(),
        denyWrite: z.array(z.string()).optional(),
        denyRead: z.array(z.string()).optional(),
      })
      .optional(),
  }),
);

/** Gantry's key for each Claude Code key it honours. */
const TRANSLATED: Readonly<Record<string, string>> = {
  enabled: "sandbox.enabled",
  "network.allowedDomains": "sandbox.allowedDomains",
  "network.deniedDomains": "sandbox.deniedDomains",
  "filesystem.allowWrite": "sandbox.allowWrite",
  "filesystem.denyWrite": "sandbox.denyWrite",
  "filesystem.denyRead": "sandbox.denyRead",
};

const PATH_KEYS = new Set(["allowWrite", "denyWrite", "denyRead"]);

/** Why a Claude Code sandbox key has no effect in Gantry, where there is more to say than "not supported". */
const UNSUPPORTED_WHY: Readonly<Record<string, string>> = {
  excludedCommands: "every command runs in the sandbox while it is on",
  allowUnsandboxedCommands: "no command leaves the sandbox while it is on",
  autoAllowBashIfSandboxed:
    "a sandboxed command is still judged by the permission rules (allow it with a rule such as Bash(npm test:*))",
  "network.allowUnixSockets": "Unix sockets stay blocked in the sandbox",
  "network.allowAllUnixSockets": "Unix sockets stay blocked in the sandbox",
  "network.httpProxyPort": "Gantry's sandbox runs its own proxy",
  "network.socksProxyPort": "Gantry's sandbox runs its own proxy",
  "filesystem.allowRead": "what sandbox.filesystem.denyRead or a secret pattern hides stays hidden",
};

export interface ClaudeSettingsLayer {
  /** `{ sandbox: {...}, env: {...} }` in Gantry's terms, paths made absolute; empty when the file sets neither. */
  settings: Record<string, unknown>;
  /** Gantry's key → the key as the file writes it (`sandbox.allowedDomains` → `sandbox.network.allowedDomains`). */
  keyNames: Record<string, string>;
  /** One line per key Gantry does not honour. */
  warnings: string[];
}

/**
 * Reads the `sandbox` section and the `env` of one Claude Code settings file (`shown` names it in
 * messages). A value of the wrong type is an error naming the file and the key; in a file trust does
 * not cover (`untrusted`) it is left out with a warning naming it, so a repository cannot stop Gantry.
 * Paths follow Claude Code: `//x` is the absolute `/x`, `~/x` is in the home, `./x` and `x` are in the
 * workspace; `/x` is relative to the workspace there, and a denial of it also covers the absolute `/x`
 * (only ever hiding more).
 */
export function readClaudeSettings(
  shown: string,
  raw: unknown,
  root: string,
  home: string,
  options: { untrusted?: boolean } = {},
): ClaudeSettingsLayer {
  const layer: ClaudeSettingsLayer = { settings: {}, keyNames: {}, warnings: [] };
  if (typeof raw !== "object" || raw === null) return layer;
  layer.warnings.push(...unusedKeyNotices("claude", shown, raw));
  const { sandbox: section, env } = raw as { sandbox?: unknown; env?: unknown };
  const read = <T>(schema: z.ZodType<T>, value: unknown, name: string): T | undefined => {
    const parsed = readSection(schema, value, name, shown, options.untrusted === true);
    layer.warnings.push(...parsed.warnings);
    return parsed.value;
  };
  if (env !== undefined) {
    const parsedEnv = read(EnvSettingSchema(), env, "env");
    if (parsedEnv !== undefined) layer.settings.env = parsedEnv;
  }
  if (section === undefined) return layer;
  const parsed = read(
    ClaudeSandboxSchema(),
    typeof section === "boolean" ? { enabled: section } : section,
    "sandbox",
  );
  if (parsed === undefined) return layer;
  const sandbox: Record<string, unknown> = {};
  for (const [claudeKey, value] of leaves(parsed)) {
    const gantryKey = TRANSLATED[claudeKey];
    if (!gantryKey) {
      const why = UNSUPPORTED_WHY[claudeKey] ?? "Gantry's sandbox has no such setting";
      layer.warnings.push(`${shown}: sandbox.${claudeKey} is not supported; ignored: ${why}`);
      continue;
    }
    const name = gantryKey.slice("sandbox.".length);
    sandbox[name] = PATH_KEYS.has(name) ? pathsOf(name, value as string[], root, home) : value;
    layer.keyNames[gantryKey] = `sandbox.${claudeKey}`;
  }
  if (Object.keys(sandbox).length > 0) layer.settings.sandbox = sandbox;
  return layer;
}

/** One section parsed; an untrusted file's broken values left out (named), a trusted file's an error. */
function readSection<T>(
  schema: z.ZodType<T>,
  value: unknown,
  name: string,
  shown: string,
  untrusted: boolean,
): { value?: T; warnings: string[] } {
  const warnings: string[] = [];
  let input = value;
  for (let attempt = 0; attempt < 8; attempt++) {
    const parsed = schema.safeParse(input);
    if (parsed.success) return { value: parsed.data, warnings };
    if (!untrusted) throw new Error(`invalid settings in ${shown}: ${issuesOf(parsed.error, name)}`);
    const dropped = dropInvalid(input, parsed.error.issues, shown, [name]);
    warnings.push(...dropped.warnings);
    if (dropped.whole) return { warnings };
    input = dropped.input;
  }
  return { warnings };
}

function issuesOf(error: z.ZodError, section: string): string {
  return error.issues.map((i) => `${[section, ...i.path].join(".")}: ${i.message}`).join("; ");
}

/** The section's values by dotted key below `sandbox` (`network.allowedDomains`, `excludedCommands`). */
function leaves(object: Record<string, unknown>, prefix = ""): [string, unknown][] {
  return Object.entries(object).flatMap(([name, value]): [string, unknown][] => {
    const key = prefix ? `${prefix}.${name}` : name;
    if (value === undefined) return [];
    if (!prefix && (name === "network" || name === "filesystem"))
      return leaves(value as Record<string, unknown>, key);
    return [[key, value]];
  });
}

function pathsOf(name: string, value: readonly string[], root: string, home: string): string[] {
  const denial = name.startsWith("deny");
  return [
    ...new Set(
      value.flatMap((entry) => {
        if (entry.startsWith("//")) return [path.resolve(entry.slice(1))];
        if (entry === "~" || entry.startsWith("~/")) return [path.join(home, entry.slice(1))];
        if (entry.startsWith("/"))
          return denial ? [path.join(root, entry), path.resolve(entry)] : [path.join(root, entry)];
        return [path.resolve(root, entry)];
      }),
    ),
  ];
}
