import { z } from "zod";
import { lazySchema } from "../config/lazy-schema.js";
import { type AnyTool, defineTool, errorResult, type ImagePart, okResult } from "../tools/contract.js";
import { nextCall, offsetArgument } from "../tools/paging.js";
import type { McpConnection } from "./connection.js";
import type { McpManager } from "./manager.js";

const LIST_PAGE = 50;

const ResourcesArgs = lazySchema(() =>
  z.strictObject({
    Action: z
      .enum(["list", "read"])
      .describe("list: the resources (and templates) servers offer; read: one resource"),
    Server: z
      .string()
      .optional()
      .describe("The MCP server (required for read; list covers every server without it)"),
    Uri: z.string().optional().describe("read: the resource's URI, as list shows it"),
    Offset: offsetArgument(
      "list: entries to skip; read: characters of the text to skip (a cut result gives the next call)",
    ),
  }),
);
type ResourcesArgs = z.infer<ReturnType<typeof ResourcesArgs>>;

/** `mcp_resources`: list and read MCP servers' resources, in parts like the other reads. */
export function createMcpResourcesTool(manager: McpManager): AnyTool {
  return defineTool({
    spec: {
      name: "mcp_resources",
      description:
        "Lists the resources MCP servers offer (files, records, documents by URI) or reads one. A long result comes in parts: its last line gives the next call, with Offset.",
      parameters: ResourcesArgs,
      safety: "read_only",
      group: "MCP",
      output: {
        continuation: (args, shownChars) =>
          args.Action === "read"
            ? nextCall(args, ((args.Offset as number | undefined) ?? 0) + shownChars)
            : "Name a Server to list fewer resources.",
      },
    },
    async execute(args, ctx) {
      if (args.Action === "read") return readResource(manager, args, ctx.signal);
      return listResources(manager, args, ctx.signal);
    },
  });
}

async function listResources(manager: McpManager, args: ResourcesArgs, signal: AbortSignal) {
  const chosen = args.Server
    ? [manager.get(args.Server)]
    : manager.connections.filter((c) => !c.config.subagentOnly);
  if (chosen.some((c) => c === undefined)) return unknownServer(manager, args.Server as string);
  const lines: string[] = [];
  const problems: string[] = [];
  for (const connection of chosen as McpConnection[]) {
    if (connection.state === "disabled") continue;
    const client = await connection.ready();
    if (typeof client === "string") {
      problems.push(client);
      continue;
    }
    const capabilities = client.getServerCapabilities();
    if (!capabilities?.resources) continue;
    const options = { signal, timeout: connection.config.timeoutMs };
    try {
      const { resources } = await client.listResources(undefined, options);
      for (const r of resources)
        lines.push(
          `${connection.config.name}  ${r.uri}  ${r.name}${r.mimeType ? `  (${r.mimeType})` : ""}${short(r.description)}`,
        );
      const { resourceTemplates } = await client.listResourceTemplates(undefined, options);
      for (const t of resourceTemplates)
        lines.push(
          `${connection.config.name}  ${t.uriTemplate}  ${t.name}  (template: fill in the {…} parts)${short(t.description)}`,
        );
    } catch (cause) {
      problems.push(connection.describeError(cause, `listing the resources of "${connection.config.name}"`));
    }
  }
  const offset = args.Offset ?? 0;
  const page = lines.slice(offset, offset + LIST_PAGE);
  const more = lines.length - offset - page.length;
  const text = [
    ...(lines.length === 0 ? ["No MCP server offers resources."] : page),
    ...problems,
    ...(more > 0 ? [`(${more} more) ${nextCall(args, offset + page.length)}`] : []),
  ].join("\n");
  return okResult(text, { resources: lines.length, shown: page.length });
}

async function readResource(manager: McpManager, args: ResourcesArgs, signal: AbortSignal) {
  if (!args.Server || !args.Uri)
    return errorResult("invalid_arguments", "mcp_resources read needs Server and Uri (list shows both).");
  const connection = manager.get(args.Server);
  if (!connection) return unknownServer(manager, args.Server);
  const client = await connection.ready();
  if (typeof client === "string") return errorResult("unavailable", client);
  try {
    const result = await client.readResource(
      { uri: args.Uri },
      { signal, timeout: connection.config.timeoutMs },
    );
    const images: ImagePart[] = [];
    const parts = result.contents.map((content) => {
      if ("text" in content && typeof content.text === "string") return content.text;
      const mimeType = content.mimeType ?? "application/octet-stream";
      const blob = "blob" in content && typeof content.blob === "string" ? content.blob : "";
      if (mimeType.startsWith("image/")) {
        images.push({ mimeType, data: blob });
        return `[image ${mimeType}]`;
      }
      return `[${content.uri}: ${mimeType}, ${Math.floor((blob.length * 3) / 4)} bytes of binary content, not shown]`;
    });
    const whole = parts.join("\n");
    const offset = args.Offset ?? 0;
    if (offset > 0 && offset >= whole.length)
      return okResult(`Offset ${offset} is past the end (${whole.length} characters).`, {
        totalChars: whole.length,
      });
    return {
      ...okResult(whole.slice(offset), { uri: args.Uri, totalChars: whole.length }),
      ...(images.length > 0 && offset === 0 ? { images } : {}),
    };
  } catch (cause) {
    if (signal.aborted) return errorResult("aborted", "mcp_resources was cancelled.");
    return errorResult("execution_failed", connection.describeError(cause, `reading ${args.Uri}`));
  }
}

function unknownServer(manager: McpManager, name: string) {
  const known = manager.connections.map((c) => c.config.name).join(", ") || "none";
  return errorResult("not_found", `No MCP server "${name}" is configured (known: ${known}).`);
}

function short(description: string | undefined): string {
  if (!description) return "";
  const line = description.replace(/\s+/g, " ").trim();
  return ` — ${line.length > 160 ? `${line.slice(0, 157)}...` : line}`;
}
