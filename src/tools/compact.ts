import type { ToolDeclaration } from "./registry.js";

/**
 * Short declarations for small local models (`tools.compact`): each tool's first sentence and its
 * schema without field descriptions. The model still gets every field, type and enum, so calls
 * validate the same; README states what it saves in tokens.
 */
export function compactDeclarations(declarations: readonly ToolDeclaration[]): ToolDeclaration[] {
  return declarations.map((declaration) => ({
    name: declaration.name,
    description: firstSentence(declaration.description),
    parameters: withoutDescriptions(declaration.parameters) as Record<string, unknown>,
  }));
}

export function firstSentence(text: string): string {
  const line = text.split("\n")[0] ?? "";
  const end = line.search(/\.(\s|$)/);
  return end < 0 ? line : line.slice(0, end + 1);
}

function withoutDescriptions(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions);
  if (typeof schema !== "object" || schema === null) return schema;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "description" && typeof value === "string") continue;
    // property names are data, not schema keywords: a field called "description" stays
    kept[key] = key === "properties" ? mapValues(value, withoutDescriptions) : withoutDescriptions(value);
  }
  return kept;
}

function mapValues(value: unknown, map: (entry: unknown) => unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, map(entry)]));
}
