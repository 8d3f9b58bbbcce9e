import { fileURLToPath } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";

/**
 * A `session/prompt`'s content blocks as the user's message: text as it is, a file the editor attached
 * (an embedded resource) as the file's text with its path, a mention (resource link) by its path.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  return blocks
    .map((block) => {
      switch (block.type) {
        case "text":
          return block.text;
        case "resource_link":
          return `@${pathOf(block.uri)}`;
        case "resource": {
          const resource = block.resource;
          if ("text" in resource) return `<file path="${pathOf(resource.uri)}">\n${resource.text}\n</file>`;
          return `[an attached binary resource, ${pathOf(resource.uri)}, left out: this agent reads text]`;
        }
        default:
          return `[an attached ${block.type} left out: this agent reads text]`;
      }
    })
    .join("\n");
}

function pathOf(uri: string): string {
  if (!uri.startsWith("file:")) return uri;
  try {
    return fileURLToPath(uri);
  } catch {
    return uri;
  }
}
