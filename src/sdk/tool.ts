import { z } from "zod";
import {
  type AnyTool,
  type DisplayGroup,
  okResult,
  type SafetyLevel,
  type ToolContext,
  type ToolResult,
} from "../tools/contract.js";

/** A JSON schema as plain data (`{ type: "object", properties: {...}, required: [...] }`). */
export type JsonSchema = Record<string, unknown>;

export interface AgentToolDefinition<S extends z.ZodType> {
  name: string;
  description: string;
  /** A zod schema, or a JSON schema (turned into one, so validation still happens once, in the pipeline). */
  parameters: S | JsonSchema;
  /**
   * How much the tool can change or reach; the approval mode decides on it. Default `execute`: in the
   * `default` mode the call asks first (and is denied when nobody can answer) until you say otherwise.
   */
  safety?: SafetyLevel;
  group?: DisplayGroup;
  aliases?: string[];
  /** A string is the result text; a ToolResult gives metadata or an error; a throw is an `execution_failed` result. */
  execute(args: z.infer<S>, context: ToolContext): Promise<string | ToolResult> | string | ToolResult;
}

const GROUP_FOR_SAFETY: Record<SafetyLevel, DisplayGroup> = {
  read_only: "Read",
  write: "Edit",
  execute: "Command",
  network: "WebFetch",
  interactive: "Interaction",
};

/** A tool of your own, run through the same pipeline as the built-in ones (rules, hooks, limits). */
export function defineAgentTool<S extends z.ZodType>(definition: AgentToolDefinition<S>): AnyTool {
  // every provider refuses the whole request over one such name, so it is refused here, where it is written
  for (const name of [definition.name, ...(definition.aliases ?? [])])
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name))
      throw new Error(
        `defineAgentTool: the name "${name}" is not a tool name providers accept: 1 to 64 letters, digits, "_" or "-"`,
      );
  const parameters = isZodSchema(definition.parameters)
    ? definition.parameters
    : schemaFromJson(definition.name, definition.parameters);
  const safety = definition.safety ?? "execute";
  return {
    spec: {
      name: definition.name,
      description: definition.description,
      parameters,
      safety,
      group: definition.group ?? GROUP_FOR_SAFETY[safety],
      ...(definition.aliases ? { aliases: definition.aliases } : {}),
    },
    async execute(args, context) {
      const answer = await definition.execute(args as z.infer<S>, context);
      return typeof answer === "string" ? okResult(answer) : answer;
    },
  };
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof (value as { safeParse?: unknown } | null)?.safeParse === "function";
}

function schemaFromJson(name: string, schema: JsonSchema): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (cause) {
    throw new Error(
      `tool "${name}": its parameters are not a JSON schema Gantry can read: ${(cause as Error).message}`,
    );
  }
}
