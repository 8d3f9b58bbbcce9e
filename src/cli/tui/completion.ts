import { walkWorkspace } from "../../tools/search/walk.js";
import type { Workspace } from "../../workspace/workspace.js";

/**
 * Completion in the editor: `@path` from the workspace's files (the search tools' walk: .gitignore,
 * build folders and secret files are left out, as the agent's own searches leave them out), and
 * `/command` at the start of the prompt.
 */
export interface CompletionItem {
  label: string;
  /** What replaces the word at the cursor. */
  insert: string;
  detail?: string;
}

const MAX_FILES = 20_000;
const MAX_ITEMS = 8;

export interface FileIndex {
  /** Workspace-relative paths, folders ending in `/`; empty until the first walk ends. */
  readonly paths: readonly string[];
  /** Walks again (after a turn: the agent may have added files). */
  refresh(): void;
}

export function createFileIndex(workspace: Workspace): FileIndex {
  let paths: string[] = [];
  let walking = false;
  const index: FileIndex = {
    get paths() {
      return paths;
    },
    refresh() {
      if (walking) return;
      walking = true;
      const found: string[] = [];
      void walkWorkspace({
        root: workspace.root,
        startRel: "",
        chain: undefined,
        secrets: workspace.secrets,
        visit(entry) {
          if (found.length >= MAX_FILES) return false;
          found.push(entry.isDir ? `${entry.rel}/` : entry.rel);
          return undefined;
        },
      })
        .then(() => {
          paths = found;
        })
        .catch(() => {})
        .finally(() => {
          walking = false;
        });
    },
  };
  return index;
}

/** Files for `@query`, best first: name starts with it, path starts with it, contains it, fuzzy. */
export function fileCompletions(query: string, paths: readonly string[]): CompletionItem[] {
  const needle = query.toLowerCase();
  const scored: { path: string; score: number }[] = [];
  for (const candidate of paths) {
    const score = matchScore(candidate, needle);
    if (score > 0) scored.push({ path: candidate, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || a.path.localeCompare(b.path));
  return scored.slice(0, MAX_ITEMS).map(({ path }) => ({
    label: path,
    insert: path.endsWith("/") ? `@${path}` : `@${path} `,
  }));
}

function matchScore(candidate: string, needle: string): number {
  if (needle === "") return candidate.includes("/") && !candidate.endsWith("/") ? 1 : 2;
  const lower = candidate.toLowerCase();
  const name = lower.replace(/\/$/, "").split("/").pop() ?? lower;
  if (name.startsWith(needle)) return 5;
  if (lower.startsWith(needle)) return 4;
  if (lower.includes(needle)) return 3;
  let at = 0;
  for (const char of lower) if (char === needle[at]) at++;
  return at === needle.length ? 1 : 0;
}

export function commandCompletions(query: string, commands: Record<string, string>): CompletionItem[] {
  return Object.entries(commands)
    .filter(([name]) => name.startsWith(query))
    .slice(0, MAX_ITEMS)
    .map(([name, what]) => ({ label: name, insert: `${name} `, detail: what }));
}
