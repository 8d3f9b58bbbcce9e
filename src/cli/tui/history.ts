import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { workspaceFolderName } from "../../session/jsonl.js";

/**
 * The prompts typed in a workspace, oldest first, kept across sessions in
 * `~/.gantry/history/<workspace>-<hash>.jsonl` (one JSON string a line, so multi-line prompts survive).
 */
export interface PromptHistory {
  readonly entries: readonly string[];
  add(prompt: string): void;
  /** The newest entry before `before` (an index; entries.length = from the newest) containing `query`. */
  search(query: string, before: number): number | undefined;
}

const KEPT = 1_000;

export function historyFile(home: string, workspaceRoot: string): string {
  return path.join(home, ".gantry", "history", `${workspaceFolderName(workspaceRoot)}.jsonl`);
}

export function openPromptHistory(file: string): PromptHistory {
  const entries = readEntries(file);
  let written = entries.length;
  return {
    entries,
    add(prompt) {
      if (prompt.trim() === "" || entries.at(-1) === prompt) return;
      entries.push(prompt);
      try {
        mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
        // rewritten now and then so the file stays near KEPT lines
        if (++written > KEPT * 2) {
          entries.splice(0, entries.length - KEPT);
          writeFileSync(file, entries.map((entry) => `${JSON.stringify(entry)}\n`).join(""), { mode: 0o600 });
          written = entries.length;
        } else appendFileSync(file, `${JSON.stringify(prompt)}\n`, { mode: 0o600 });
      } catch {
        // history is a convenience: a read-only home must not break the session
      }
    },
    search(query, before) {
      const needle = query.toLowerCase();
      for (let i = Math.min(before, entries.length) - 1; i >= 0; i--) {
        if ((entries[i] ?? "").toLowerCase().includes(needle)) return i;
      }
      return undefined;
    },
  };
}

function readEntries(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return [];
  }
  const entries: string[] = [];
  for (const line of text.split("\n")) {
    if (line === "") continue;
    try {
      const entry = JSON.parse(line) as unknown;
      if (typeof entry === "string") entries.push(entry);
    } catch {
      // a damaged line (a crash mid-write) is skipped
    }
  }
  return entries.slice(-KEPT);
}
