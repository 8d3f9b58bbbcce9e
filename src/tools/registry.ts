import { distance } from "fastest-levenshtein";
import { z } from "zod";
import type { AnyTool, SafetyLevel } from "./contract.js";

/** What a provider is sent for one tool: generated from the tool's zod schema, never written twice. */
export interface ToolDeclaration {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface ToolRegistry {
  register(tool: AnyTool): void;
  /** Canonical name or alias → tool (enabled or not). */
  lookup(name: string): AnyTool | undefined;
  /** The closest known names, for "unknown tool" errors. */
  closestNames(name: string, count?: number): string[];
  setEnabled(name: string, enabled: boolean): void;
  isEnabled(name: string): boolean;
  all(): AnyTool[];
  listEnabled(safety?: SafetyLevel): AnyTool[];
  /** The declarations of the enabled tools; by default the main agent's (no subagent-only tools). */
  declarations(filter?: (tool: AnyTool) => boolean): ToolDeclaration[];
}

/** The main agent's tools: every enabled tool but those kept for subagents (`audience: "subagents"`). */
export const forMainAgent = (tool: AnyTool): boolean => tool.spec.audience !== "subagents";

export function createToolRegistry(tools: Iterable<AnyTool> = []): ToolRegistry {
  const byName = new Map<string, AnyTool>();
  const aliases = new Map<string, string>();
  const enabled = new Map<string, boolean>();
  const declarationCache = new Map<string, ToolDeclaration>();

  const canonical = (name: string) => (byName.has(name) ? name : aliases.get(name));

  const registry: ToolRegistry = {
    register(tool) {
      const { name } = tool.spec;
      for (const key of [name, ...(tool.spec.aliases ?? [])]) {
        if (byName.has(key) || aliases.has(key)) throw new Error(`tool name "${key}" is registered twice`);
      }
      byName.set(name, tool);
      for (const alias of tool.spec.aliases ?? []) aliases.set(alias, name);
      enabled.set(name, tool.spec.enabled ?? true);
    },
    lookup(name) {
      const key = canonical(name);
      return key === undefined ? undefined : byName.get(key);
    },
    closestNames(name, count = 3) {
      // an alias close to the name counts for its tool: "grep_s" is nearest the alias "grep", so it names
      // grep_search; each tool is named once, by its canonical name, and switched-off tools not at all
      const query = name.toLowerCase();
      const best = new Map<string, number>();
      for (const [key, tool] of [...[...byName.keys()].map((n) => [n, n] as const), ...aliases]) {
        if (!enabled.get(tool)) continue;
        const score = distance(query, key.toLowerCase());
        if (score < (best.get(tool) ?? Number.POSITIVE_INFINITY)) best.set(tool, score);
      }
      return [...best]
        .sort(([a, x], [b, y]) => x - y || a.localeCompare(b))
        .slice(0, count)
        .map(([tool]) => tool);
    },
    setEnabled(name, value) {
      const key = canonical(name);
      if (key === undefined) throw new Error(`unknown tool "${name}"`);
      enabled.set(key, value);
    },
    isEnabled(name) {
      const key = canonical(name);
      return key !== undefined && enabled.get(key) === true;
    },
    all() {
      return [...byName.values()];
    },
    listEnabled(safety) {
      return registry
        .all()
        .filter(
          (tool) => enabled.get(tool.spec.name) && (safety === undefined || tool.spec.safety === safety),
        );
    },
    declarations(filter = forMainAgent) {
      return registry
        .listEnabled()
        .filter(filter)
        .map((tool) => {
          let declaration = declarationCache.get(tool.spec.name);
          if (!declaration) {
            declaration = {
              name: tool.spec.name,
              description: tool.spec.description,
              parameters: tool.spec.jsonSchema ?? toJsonSchema(tool.spec.parameters),
            };
            declarationCache.set(tool.spec.name, declaration);
          }
          return declaration;
        });
    },
  };
  for (const tool of tools) registry.register(tool);
  return registry;
}

export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
