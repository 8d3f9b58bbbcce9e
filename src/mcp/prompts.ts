import type { GetPromptResult, Prompt } from "@modelcontextprotocol/client";
import type { McpConnection } from "./connection.js";
import type { McpManager } from "./manager.js";
import { mcpToolName } from "./tool-adapter.js";

/** An MCP prompt as a slash command of the interactive UI: `/mcp__<server>__<prompt> args…` (Claude Code's names). */
export interface McpPromptCommand {
  command: string;
  server: string;
  prompt: Prompt;
}

/** The prompts of the servers that are running, as slash commands. */
export async function listPromptCommands(
  manager: McpManager,
  signal: AbortSignal,
): Promise<McpPromptCommand[]> {
  const commands: McpPromptCommand[] = [];
  for (const connection of manager.connections) {
    const prompts = await promptsOf(connection, signal);
    for (const prompt of prompts)
      commands.push({
        command: `/${mcpToolName(connection.config.name, prompt.name)}`,
        server: connection.config.name,
        prompt,
      });
  }
  return commands;
}

async function promptsOf(connection: McpConnection, signal: AbortSignal): Promise<Prompt[]> {
  if (connection.state !== "ready" && connection.state !== "failed") return [];
  const client = await connection.ready();
  if (typeof client === "string" || !client.getServerCapabilities()?.prompts) return [];
  try {
    return (await client.listPrompts(undefined, { signal, timeout: connection.config.timeoutMs })).prompts;
  } catch {
    return [];
  }
}

/** `/mcp__github__review 42 high` → the prompt's messages as the text of one user turn, or why not. */
export async function expandPromptCommand(
  manager: McpManager,
  line: string,
  signal: AbortSignal,
): Promise<{ text: string } | { error: string }> {
  const [word = "", ...words] = splitWords(line.trim());
  const command = (await listPromptCommands(manager, signal)).find((c) => c.command === word);
  if (!command) return { error: `no MCP prompt ${word} (/mcp lists the servers and their prompts)` };
  const declared = command.prompt.arguments ?? [];
  const missing = declared.slice(words.length).filter((argument) => argument.required);
  if (missing.length > 0 || words.length > declared.length) return { error: `usage: ${usageOf(command)}` };
  const args = Object.fromEntries(
    declared.slice(0, words.length).map((a, i) => [a.name, words[i] as string]),
  );
  const connection = manager.get(command.server) as McpConnection;
  const client = await connection.ready();
  if (typeof client === "string") return { error: client };
  try {
    const result = await client.getPrompt(
      { name: command.prompt.name, arguments: args },
      { signal, timeout: connection.config.timeoutMs },
    );
    return { text: promptText(result) };
  } catch (cause) {
    return { error: connection.describeError(cause, word) };
  }
}

export function usageOf(command: McpPromptCommand): string {
  const args = (command.prompt.arguments ?? []).map((a) => (a.required ? `<${a.name}>` : `[${a.name}]`));
  return [command.command, ...args].join(" ");
}

/** The prompt's messages as one text: the model reads them as the user's turn. */
function promptText(result: GetPromptResult): string {
  return result.messages
    .map((message) => {
      const content = message.content;
      const text =
        content.type === "text"
          ? content.text
          : content.type === "resource" && "text" in content.resource
            ? String(content.resource.text)
            : `[${content.type} content]`;
      return message.role === "assistant" ? `(assistant) ${text}` : text;
    })
    .join("\n\n");
}

/** Words split on spaces; "double" or 'single' quotes keep spaces inside one argument. */
function splitWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g))
    words.push(match[1] ?? match[2] ?? match[3] ?? "");
  return words;
}
