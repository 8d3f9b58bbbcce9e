import { createHash } from "node:crypto";
import type { Tool as McpToolInfo } from "@modelcontextprotocol/client";
import { z } from "zod";
import { type AnyTool, defineTool, errorResult } from "../tools/contract.js";
import type { McpConnection } from "./connection.js";
import { toolResultFromMcp } from "./content.js";
import { loadedMcpSdk } from "./load-sdk.js";

/** Providers take tool names of at most 64 characters from `[A-Za-z0-9_-]`. */
const MAX_NAME = 64;

/** `mcp__<server>__<tool>`, as Claude Code names them; characters providers refuse become `_`. */
export function mcpToolName(server: string, tool: string): string {
  const name = `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash("sha256").update(name).digest("hex").slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

/**
 * One tool of an MCP server as a Gantry tool: its own JSON schema goes to the model and validates the
 * arguments in the pipeline; the call is sent to the server (started or restarted as needed), with
 * the call's signal as the cancellation and the server's `timeout` as the limit.
 */
export function createMcpTool(connection: McpConnection, info: McpToolInfo): AnyTool {
  const server = connection.config.name;
  const name = mcpToolName(server, info.name);
  const inputSchema = info.inputSchema as Record<string, unknown>;
  // a server's tools are known once it has started, so the SDK is loaded by now
  const standard = loadedMcpSdk().fromJsonSchema(inputSchema);
  const parameters = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const checked = standard["~standard"].validate(value);
    if ("issues" in checked && checked.issues)
      for (const issue of checked.issues)
        ctx.addIssue({ code: "custom", message: `${issue.message} (the server's input schema)` });
  });
  // providers want an object schema: the `$schema` dialect line goes, a bare `{}` becomes an empty object
  const { $schema: _dialect, ...rest } = inputSchema;
  const declared = rest.type === undefined ? { type: "object", properties: {}, ...rest } : rest;
  return defineTool({
    spec: {
      name,
      description: describe(server, info),
      parameters,
      jsonSchema: declared,
      safety: "execute",
      group: "MCP",
      mcp: { server, tool: info.name, connection: connection.config.connection },
      ...(connection.config.subagentOnly ? { audience: "subagents" as const } : {}),
    },
    async execute(args, ctx) {
      if (!connection.tools.some((tool) => tool.name === info.name) && connection.state === "ready")
        return errorResult("unavailable", `MCP server "${server}" no longer offers the tool "${info.name}".`);
      const client = await connection.ready();
      if (typeof client === "string") return errorResult("unavailable", client);
      try {
        const onUpdate = ctx.onUpdate;
        const result = await client.callTool(
          { name: info.name, arguments: args },
          {
            signal: ctx.signal,
            timeout: connection.config.timeoutMs,
            // asking for progress (a progressToken) only where someone shows it: the UI's live line, ACP's update
            ...(onUpdate ? { onprogress: (progress: McpProgress) => onUpdate(progressLine(progress)) } : {}),
          },
        );
        return toolResultFromMcp(result, name);
      } catch (cause) {
        if (ctx.signal.aborted) return errorResult("aborted", `${name} was cancelled.`);
        return errorResult("execution_failed", connection.describeError(cause, name));
      }
    },
  });
}

interface McpProgress {
  progress: number;
  total?: number;
  message?: string;
}

/** `progress 2/5`, or the server's own words with the count: `indexing files (2/5)`. */
function progressLine({ progress, total, message }: McpProgress): string {
  const count = total !== undefined ? `${progress}/${total}` : `${progress}`;
  return message ? `${message} (${count})` : `progress ${count}`;
}

function describe(server: string, info: McpToolInfo): string {
  const title = info.title ?? info.annotations?.title;
  const text = info.description?.trim() || title || info.name;
  return `${text}\n\n(MCP server "${server}")`;
}
