import { appendFileSync, closeSync, fstatSync, mkdirSync, openSync, readSync, writeFileSync } from "node:fs";
import { CLAUDE_TOOLS } from "../dialects/tool-tables.js";
import { claudeTranslator } from "./claude-lines.js";
import { sessionEntryOf, type TranscriptTranslator, type ViewContext } from "./entries.js";
import { geminiTranslator } from "./gemini-lines.js";
import { qwenTranslator } from "./qwen-lines.js";

export type TranscriptDialect = "claude" | "gemini" | "qwen";

const SHOWN: Record<TranscriptDialect, string> = {
  claude: "Claude Code",
  gemini: "Gemini CLI",
  qwen: "Qwen Code",
};

/**
 * The session's transcript as each harness writes its own, for that harness's hooks' `transcript_path`
 * (and `agent_transcript_path`): a script that reads the conversation (the last assistant message, the
 * commands run) finds the lines it knows. Each view is a file beside the session file,
 * `<session>.views/<dialect>.jsonl`, made in full the first time a hook of that dialect asks in this
 * process and brought up to date from the session file's new complete lines at each later ask; nothing
 * is written for a dialect no hook uses.
 */
export interface TranscriptViews {
  /** The view of `source` (a session or subagent transcript file) for `dialect`, up to date; "" when none can be made. */
  pathFor(dialect: TranscriptDialect, source: string): string;
}

interface View {
  file: string;
  /** Bytes of the session file read so far (complete lines only). */
  read: number;
  translator: TranscriptTranslator;
}

export function createTranscriptViews(options: {
  sessionId(): string;
  cwd: string;
  log(line: string): void;
}): TranscriptViews {
  const views = new Map<string, View>();
  const failed = new Set<string>();
  return {
    pathFor(dialect, source) {
      if (source === "") return "";
      const key = `${dialect}\0${source}`;
      if (failed.has(key)) return "";
      try {
        let view = views.get(key);
        if (view === undefined) {
          view = openView(dialect, source, { sessionId: options.sessionId(), cwd: options.cwd });
          views.set(key, view);
        }
        catchUp(view, source);
        return view.file;
      } catch (cause) {
        failed.add(key);
        options.log(
          `cannot write the ${SHOWN[dialect]} view of the transcript ${source} (${(cause as Error).message}); its hooks get an empty transcript_path`,
        );
        return "";
      }
    },
  };
}

/** `<session>.jsonl` → `<session>.views/<dialect>.jsonl`. */
export function viewFileOf(source: string, dialect: TranscriptDialect): string {
  return `${source.replace(/\.jsonl$/, "")}.views/${dialect}.jsonl`;
}

function openView(dialect: TranscriptDialect, source: string, context: ViewContext): View {
  const file = viewFileOf(source, dialect);
  mkdirSync(file.slice(0, file.lastIndexOf("/")), { recursive: true, mode: 0o700 });
  // made again in full by each process: a view a crash left part-written is never continued
  writeFileSync(file, "", { mode: 0o600 });
  const translator =
    dialect === "claude"
      ? claudeTranslator(context, CLAUDE_TOOLS)
      : dialect === "gemini"
        ? geminiTranslator(context)
        : qwenTranslator(context);
  return { file, read: 0, translator };
}

const CHUNK = 256 * 1024;

/** Appends the lines of the session file's complete lines past `view.read`; a half-written last line waits. */
function catchUp(view: View, source: string): void {
  const fd = openSync(source, "r");
  try {
    const size = fstatSync(fd).size;
    let pending = Buffer.alloc(0);
    while (view.read + pending.length < size) {
      const chunk = Buffer.alloc(Math.min(CHUNK, size - view.read - pending.length));
      const got = readSync(fd, chunk, 0, chunk.length, view.read + pending.length);
      if (got === 0) break;
      pending = Buffer.concat([pending, chunk.subarray(0, got)]);
      const end = pending.lastIndexOf(10);
      if (end < 0) continue;
      const out: string[] = [];
      for (const line of pending.toString("utf8", 0, end).split("\n")) {
        if (line.trim() === "") continue;
        let parsed: unknown;
        try {
          parsed = JSON.parse(line);
        } catch {
          continue; // a damaged line is left out, as loading a session does
        }
        const entry = sessionEntryOf(parsed);
        if (entry) for (const shaped of view.translator.lines(entry)) out.push(`${JSON.stringify(shaped)}\n`);
      }
      if (out.length > 0) appendFileSync(view.file, out.join(""));
      view.read += end + 1;
      pending = pending.subarray(end + 1);
    }
  } finally {
    closeSync(fd);
  }
}
