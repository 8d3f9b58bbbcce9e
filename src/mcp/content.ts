import type { CallToolResult } from "@modelcontextprotocol/client";
import type { ImagePart, ToolResult } from "../tools/contract.js";

type Block = CallToolResult["content"][number];

/**
 * An MCP tool result as a Gantry result: text blocks joined for the model, images (also embedded image
 * resources) passed on for models that take them, other binary content named but not inlined.
 */
export function toolResultFromMcp(result: CallToolResult, toolName: string): ToolResult {
  const parts: string[] = [];
  const images: ImagePart[] = [];
  for (const block of result.content ?? []) parts.push(describeBlock(block, images));
  if (!parts.some((part) => part !== "") && result.structuredContent !== undefined)
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  let text = parts.filter((part) => part !== "").join("\n");
  if (text === "" && images.length === 0) text = result.isError ? `${toolName} failed.` : "(no output)";
  const metadata: Record<string, unknown> = {
    mcpContent: (result.content ?? []).map((block) => block.type),
    ...(result.structuredContent !== undefined ? { structuredContent: result.structuredContent } : {}),
  };
  return {
    text,
    error: result.isError === true,
    ...(result.isError === true ? { errorCode: "execution_failed" as const } : {}),
    metadata,
    ...(images.length > 0 ? { images } : {}),
  };
}

function describeBlock(block: Block, images: ImagePart[]): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
      images.push({ mimeType: block.mimeType, data: block.data });
      return `[image ${block.mimeType}]`;
    case "audio":
      return `[audio ${block.mimeType}, ${approxBytes(block.data)} bytes, not shown]`;
    case "resource_link":
      return `[resource ${block.uri}${block.name ? ` "${block.name}"` : ""}${block.mimeType ? ` ${block.mimeType}` : ""}]`;
    case "resource":
      return describeEmbedded(block.resource, images);
    default:
      return `[${(block as { type: string }).type} content]`;
  }
}

function describeEmbedded(
  resource: { uri: string; mimeType?: string; text?: string; blob?: string },
  images: ImagePart[],
): string {
  if (typeof resource.text === "string") return `[resource ${resource.uri}]\n${resource.text}`;
  const mimeType = resource.mimeType ?? "application/octet-stream";
  if (typeof resource.blob === "string" && mimeType.startsWith("image/")) {
    images.push({ mimeType, data: resource.blob });
    return `[resource ${resource.uri}: image ${mimeType}]`;
  }
  return `[resource ${resource.uri}: ${mimeType}, ${approxBytes(resource.blob ?? "")} bytes, not shown]`;
}

function approxBytes(base64: string): number {
  return Math.floor((base64.length * 3) / 4);
}
