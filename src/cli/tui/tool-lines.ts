import path from "node:path";
import type { DisplayGroup } from "../../tools/contract.js";

/**
 * One line per tool call, named by its display group (SPEC §2): `Read view_file src/a.ts`. A run of
 * consecutive Read/Search calls collapses into one line, `Read src/a.ts, src/b.ts`. Pure: no I/O, no colour.
 */
export interface ToolCallView {
  /** The display group; undefined for a tool the registry does not know. */
  group: DisplayGroup | undefined;
  name: string;
  /** What the call is about, shortened for one line: a path, a pattern, a command. */
  target: string;
}

const COLLAPSIBLE = new Set<DisplayGroup>(["Read", "Search"]);
/** The argument that says what a call is about, in the order tried. */
const TARGET_ARGS = [
  "AbsolutePath",
  "DirectoryPath",
  "TargetFile",
  "SearchPath",
  "SearchDirectory",
  "CommandLine",
  "Url",
  "query",
  "ImageName",
  "Action",
  "name",
  "description",
];
const MAX_TARGET = 80;

export function isCollapsible(group: DisplayGroup | undefined): boolean {
  return group !== undefined && COLLAPSIBLE.has(group);
}

/** Each call's view, made once from its first event (a call's later events carry the same args). */
export function createCallViews(
  groupOf: (name: string) => DisplayGroup | undefined,
  workspaceRoot: string,
): { of(call: { callId: string; name: string; args: unknown }): ToolCallView; clear(): void } {
  const views = new Map<string, ToolCallView>();
  return {
    of(call) {
      const known = views.get(call.callId);
      if (known) return known;
      const made = {
        group: groupOf(call.name),
        name: call.name,
        target: describeTarget(call.name, call.args, workspaceRoot),
      };
      views.set(call.callId, made);
      return made;
    },
    clear: () => views.clear(),
  };
}

/** What the call is about: a workspace-relative path, the search pattern, the command line. */
export function describeTarget(name: string, args: unknown, workspaceRoot: string): string {
  if (typeof args !== "object" || args === null) return shorten(String(args ?? ""));
  const record = args as Record<string, unknown>;
  const key = TARGET_ARGS.find((candidate) => typeof record[candidate] === "string");
  let target = key ? (record[key] as string) : "";
  if (key && /Path|File|Directory/.test(key)) target = relativeTo(workspaceRoot, target);
  if (name === "search_web" && typeof record.query === "string") target = `"${record.query}"`;
  const pattern = record.Query ?? record.Pattern;
  if (typeof pattern === "string") target = `"${pattern}"${target ? ` in ${target}` : ""}`;
  if (name === "invoke_subagent" && Array.isArray(record.Subagents))
    target = `${record.Subagents.length} agent${record.Subagents.length === 1 ? "" : "s"}`;
  return shorten(target);
}

/** Seed 000's own words for a group's calls: "Searching web" while it runs, "Searched web for %s" after. */
export const GROUP_PHRASES: Partial<
  Record<DisplayGroup, { running: string; done: (target: string) => string }>
> = {
  WebSearch: { running: "Searching web", done: (target) => `Searched web for ${target}` },
};

/** `Read view_file src/a.ts`; a tool without a group shows its name alone. */
export function formatCallLine(call: ToolCallView): string {
  const phrase = call.group ? GROUP_PHRASES[call.group] : undefined;
  if (phrase) return call.target ? phrase.done(call.target) : phrase.running;
  return [call.group, call.name, call.target].filter((part) => part).join(" ");
}

/** Targets named in a collapsed line per group; the rest are counted. */
const MAX_NAMED = 4;

/**
 * One line for a run of Read/Search calls: a single call in full; otherwise each group with what it
 * touched, in the order they came: `Read src/a.ts, src/b.ts · Search "TODO" in src`.
 */
export function formatCollapsedLine(calls: readonly ToolCallView[]): string {
  if (calls.length === 1) return formatCallLine(calls[0] as ToolCallView);
  const byGroup = new Map<string, string[]>();
  for (const call of calls) {
    const key = call.group ?? call.name;
    const targets = byGroup.get(key) ?? [];
    if (call.target !== "" && !targets.includes(call.target)) targets.push(call.target);
    byGroup.set(key, targets);
  }
  return [...byGroup]
    .map(([group, targets]) => {
      const named = targets.slice(0, MAX_NAMED).join(", ");
      const more = targets.length > MAX_NAMED ? ` +${targets.length - MAX_NAMED} more` : "";
      return `${group} ${named}${more}`.trimEnd();
    })
    .join(" · ");
}

/** A tool error in one line: its whole first line (where the fix hint usually is). */
export function formatToolError(name: string, text: string): string {
  const first = text.trim().split("\n")[0] ?? "";
  return `${name} failed: ${first.trim()}`;
}

/** What a running call is doing, in the words of seed 000: `Reading src/a.ts`, `Running npm test`. */
export function progressLabel(call: ToolCallView): string {
  const verb = call.group ? PROGRESS_VERBS[call.group] : undefined;
  if (!verb) return call.target ? `${call.name} ${call.target}` : call.name;
  return call.target ? `${verb} ${call.target}` : verb;
}

const PROGRESS_VERBS: Partial<Record<DisplayGroup, string>> = {
  Read: "Reading",
  Edit: "Editing",
  Search: "Searching",
  WebSearch: "Searching web for",
  WebFetch: "Fetching",
  Command: "Running",
  Subagents: "Delegating to",
  Permission: "Checking permissions",
  Interaction: "Asking",
};

export type DiffLineKind = "added" | "removed" | "hunk" | "header" | "context";

/** Classifies each line of a unified diff, so the renderer can colour it. */
export function classifyDiffLines(diff: string): { kind: DiffLineKind; text: string }[] {
  const lines = diff.replace(/\n$/, "").split("\n");
  return lines.map((text) => {
    if (text.startsWith("+++") || text.startsWith("---") || text.startsWith("Index:") || /^={3,}$/.test(text))
      return { kind: "header", text };
    if (text.startsWith("@@")) return { kind: "hunk", text };
    if (text.startsWith("+")) return { kind: "added", text };
    if (text.startsWith("-")) return { kind: "removed", text };
    return { kind: "context", text };
  });
}

/**
 * Holds consecutive Read/Search calls until something else is shown, then gives their one line.
 * `add` returns the lines to print now (the pending run's line first, when a call ends it).
 */
export function createToolLineGrouper() {
  let pending: ToolCallView[] = [];
  let pendingErrors: string[] = [];

  function flush(): string[] {
    if (pending.length === 0) return [];
    const lines = [formatCollapsedLine(pending), ...pendingErrors];
    pending = [];
    pendingErrors = [];
    return lines;
  }

  return {
    add(call: ToolCallView): string[] {
      if (isCollapsible(call.group)) {
        pending.push(call);
        return [];
      }
      return [...flush(), formatCallLine(call)];
    },
    /** An error of a held call waits for the run's line; others print at once. */
    error(call: ToolCallView, text: string): string[] {
      const line = formatToolError(call.name, text);
      if (isCollapsible(call.group) && pending.length > 0) {
        pendingErrors.push(line);
        return [];
      }
      return [line];
    },
    flush,
    /** The line the held run would print now, without ending it (a live view of it). */
    preview(): string | undefined {
      return pending.length > 0 ? formatCollapsedLine(pending) : undefined;
    },
    get holding(): boolean {
      return pending.length > 0;
    },
  };
}

export type ToolLineGrouper = ReturnType<typeof createToolLineGrouper>;

function relativeTo(root: string, target: string): string {
  if (!path.isAbsolute(target)) return target;
  const relative = path.relative(root, target);
  if (relative === "") return ".";
  return relative.startsWith("..") ? target : relative;
}

function shorten(text: string, max = MAX_TARGET): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1)}…` : oneLine;
}
