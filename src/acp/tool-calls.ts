import { readFile } from "node:fs/promises";
import path from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk";
import type { ToolCallRecord } from "../agent/conversation.js";
import type { AnyTool, ToolResult } from "../tools/contract.js";
import type { Workspace } from "../workspace/workspace.js";

/** How an editor draws a Gantry tool call: its kind (the icon), a title, the files it touches. */
export interface ToolCallView {
  kind: ToolKind;
  title: string;
  locations: ToolCallLocation[];
}

const KIND_BY_GROUP: Record<string, ToolKind> = {
  Read: "read",
  Search: "search",
  Edit: "edit",
  Command: "execute",
  WebFetch: "fetch",
  WebSearch: "fetch",
  Subagents: "think",
};

/** The argument that says what a call is about, per tool family (seed 000's names). */
const SUBJECT_ARGS = [
  "AbsolutePath",
  "TargetFile",
  "DirectoryPath",
  "SearchPath",
  "SearchDirectory",
  "CommandLine",
  "Url",
  "query",
];
const PATH_ARGS = new Set(["AbsolutePath", "TargetFile", "DirectoryPath", "SearchPath", "SearchDirectory"]);

export function viewOf(call: ToolCallRecord, tool: AnyTool | undefined, root: string): ToolCallView {
  const args =
    typeof call.args === "object" && call.args !== null ? (call.args as Record<string, unknown>) : {};
  const name = tool?.spec.name ?? call.name;
  const kind = name === "delete_file" ? "delete" : (KIND_BY_GROUP[tool?.spec.group ?? ""] ?? "other");
  const key = SUBJECT_ARGS.find((candidate) => typeof args[candidate] === "string");
  const subject = key ? String(args[key]) : undefined;
  const locations = key && PATH_ARGS.has(key) && subject ? [{ path: path.resolve(root, subject) }] : [];
  return { kind, title: subject ? `${name} ${oneLine(subject)}` : name, locations };
}

function oneLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

export interface EditSnapshot {
  path: string;
  /** null: a new file (or one too large or binary to show). */
  oldText: string | null;
  deletes: boolean;
}

/** Largest file whose before and after an edit's diff carries. */
const MAX_DIFF_BYTES = 1024 * 1024;

/**
 * The file an edit call is about to change, read just before it runs (after the policy, hooks and
 * consent let it), through the workspace guard: a secret or outside path is never read.
 */
export async function snapshotBeforeEdit(
  call: ToolCallRecord,
  tool: AnyTool | undefined,
  workspace: Workspace,
): Promise<EditSnapshot | undefined> {
  if (tool?.spec.group !== "Edit") return undefined;
  const target = (call.args as Record<string, unknown> | undefined)?.TargetFile;
  if (typeof target !== "string") return undefined;
  const resolved = await workspace.resolve(target);
  if (!resolved.ok) return undefined;
  const deletes = tool.spec.name === "delete_file";
  return { path: resolved.path.abs, oldText: await readSmallText(resolved.path.abs), deletes };
}

/** What the editor shows for a finished call: the diff of an edit, and the text the model got. */
export async function resultContent(
  result: ToolResult,
  before: EditSnapshot | undefined,
): Promise<ToolCallContent[]> {
  const content: ToolCallContent[] = [];
  if (before && !result.error) {
    const newText = before.deletes ? "" : await readSmallText(before.path);
    if (newText !== null) content.push({ type: "diff", path: before.path, oldText: before.oldText, newText });
  }
  if (result.text) content.push({ type: "content", content: { type: "text", text: result.text } });
  return content;
}

async function readSmallText(file: string): Promise<string | null> {
  try {
    const data = await readFile(file);
    if (data.length > MAX_DIFF_BYTES || data.includes(0)) return null;
    return data.toString("utf8");
  } catch {
    return null;
  }
}
