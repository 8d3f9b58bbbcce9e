import {
  backgroundFlag,
  constant,
  type DialectTool,
  editsField,
  field,
  globField,
  joinedChunks,
  lineWindow,
  negated,
  promptUrl,
  sameNames,
  unsupported,
} from "./tool-map.js";

// Claude's and Qwen's Bash `timeout` kills the command; Gantry's WaitMsBeforeAsync sends it to the background
const noKillDeadline = () =>
  unsupported(
    "timeout",
    "run_command has no per-call kill deadline (WaitMsBeforeAsync only sends the command to the background; the session's command timeout ends it)",
  );
const file = (gantry: string, dialect = "file_path") => field(gantry, dialect, { path: true });
const AGENT_ARGS = sameNames(
  "description",
  "prompt",
  "subagent_type",
  "run_in_background",
  "isolation",
  "working_dir",
  "fork_turns",
  "fork_tools",
  "fork_profile",
);

/** Gantry's tools as Claude Code names and shapes them (its Bash, Read, Write, Edit, MultiEdit, ...). */
export const CLAUDE_TOOLS: Record<string, DialectTool> = {
  run_command: {
    name: "Bash",
    fields: [
      field("CommandLine", "command"),
      noKillDeadline(),
      backgroundFlag("run_in_background"),
      field("Cwd", "cwd", { path: true }),
    ],
  },
  view_file: { name: "Read", fields: [file("AbsolutePath"), lineWindow(1)] },
  write_to_file: { name: "Write", fields: [file("TargetFile"), field("CodeContent", "content")] },
  replace_file_content: {
    name: "Edit",
    fields: [
      file("TargetFile"),
      field("TargetContent", "old_string"),
      field("ReplacementContent", "new_string"),
      field("AllowMultiple", "replace_all"),
    ],
  },
  multi_replace_file_content: { name: "MultiEdit", fields: [file("TargetFile"), editsField()] },
  list_dir: { name: "LS", fields: [file("DirectoryPath", "path")] },
  find_by_name: { name: "Glob", fields: [field("Pattern", "pattern"), file("SearchDirectory", "path")] },
  grep_search: {
    name: "Grep",
    fields: [
      field("Query", "pattern"),
      file("SearchPath", "path"),
      globField("glob"),
      field("CaseInsensitive", "-i"),
      outputMode(),
    ],
  },
  read_url_content: { name: "WebFetch", fields: [field("Url", "url")] },
  search_web: { name: "WebSearch", fields: [field("query", "query"), domainList()] },
  agent: { name: "Task", aliases: ["Agent"], fields: AGENT_ARGS },
  ask_question: { name: "AskUserQuestion", fields: [field("questions", "questions")] },
};

/** Gantry's tools as Gemini CLI names and shapes them (run_shell_command, read_file, replace, ...). */
export const GEMINI_TOOLS: Record<string, DialectTool> = {
  run_command: {
    name: "run_shell_command",
    fields: [
      field("CommandLine", "command"),
      field("Cwd", "dir_path", { path: true }),
      backgroundFlag("is_background"),
    ],
  },
  view_file: {
    name: "read_file",
    fields: [file("AbsolutePath"), field("StartLine", "start_line"), field("EndLine", "end_line")],
  },
  write_to_file: { name: "write_file", fields: [file("TargetFile"), field("CodeContent", "content")] },
  replace_file_content: {
    name: "replace",
    fields: [
      file("TargetFile"),
      field("Instruction", "instruction"),
      field("TargetContent", "old_string"),
      field("ReplacementContent", "new_string"),
      field("AllowMultiple", "allow_multiple"),
    ],
  },
  multi_replace_file_content: {
    name: "replace",
    fields: [file("TargetFile"), field("Instruction", "instruction"), joinedChunks("allow_multiple")],
  },
  list_dir: { name: "list_directory", fields: [file("DirectoryPath", "dir_path")] },
  find_by_name: { name: "glob", fields: [field("Pattern", "pattern"), file("SearchDirectory", "dir_path")] },
  grep_search: {
    name: "grep_search",
    fields: [
      field("Query", "pattern"),
      file("SearchPath", "dir_path"),
      globField("include_pattern"),
      negated("MatchPerLine", "names_only"),
      negated("CaseInsensitive", "case_sensitive"),
      negated("IsRegex", "fixed_strings"),
    ],
  },
  read_url_content: { name: "web_fetch", fields: [promptUrl()] },
  search_web: { name: "google_web_search", fields: [field("query", "query")] },
  ask_question: { name: "ask_user", fields: [field("questions", "questions")] },
};

/** Gantry's tools as Qwen Code names and shapes them (its tool ids; display names match too). */
export const QWEN_TOOLS: Record<string, DialectTool> = {
  run_command: {
    name: "run_shell_command",
    aliases: ["Shell"],
    fields: [
      field("CommandLine", "command"),
      backgroundFlag("is_background"),
      noKillDeadline(),
      field("Cwd", "directory", { path: true }),
    ],
  },
  view_file: { name: "read_file", aliases: ["ReadFile"], fields: [file("AbsolutePath"), lineWindow(0)] },
  write_to_file: {
    name: "write_file",
    aliases: ["WriteFile"],
    fields: [file("TargetFile"), field("CodeContent", "content")],
  },
  replace_file_content: {
    name: "edit",
    aliases: ["Edit"],
    fields: [
      file("TargetFile"),
      field("TargetContent", "old_string"),
      field("ReplacementContent", "new_string"),
      field("AllowMultiple", "replace_all"),
    ],
  },
  multi_replace_file_content: {
    name: "edit",
    aliases: ["Edit"],
    fields: [file("TargetFile"), joinedChunks("replace_all")],
  },
  list_dir: { name: "list_directory", aliases: ["ListFiles"], fields: [file("DirectoryPath", "path")] },
  find_by_name: {
    name: "glob",
    aliases: ["Glob"],
    fields: [field("Pattern", "pattern"), file("SearchDirectory", "path")],
  },
  grep_search: {
    name: "grep_search",
    aliases: ["Grep"],
    fields: [field("Query", "pattern"), file("SearchPath", "path"), globField("glob")],
  },
  read_url_content: { name: "web_fetch", aliases: ["WebFetch"], fields: [field("Url", "url")] },
  search_web: { name: "web_search", aliases: ["WebSearch"], fields: [field("query", "query")] },
  agent: { name: "agent", aliases: ["task", "Agent", "Task"], fields: AGENT_ARGS },
  ask_question: {
    name: "ask_user_question",
    aliases: ["AskUserQuestion"],
    fields: [field("questions", "questions")],
  },
};

/**
 * seed 002's container shapes, added beside Gantry's own names in native events: its `read_file`,
 * `write_file`, `list_files`, `delete_file` read `path` (and `content`), its `code_execution` `code` and
 * `language`. Paths are absolute, as in the seed's sandbox.
 */
export const NATIVE_CONTAINER_FIELDS: Record<string, DialectTool> = {
  view_file: { name: "read_file", fields: [file("AbsolutePath", "path")] },
  write_to_file: {
    name: "write_file",
    fields: [file("TargetFile", "path"), field("CodeContent", "content")],
  },
  list_dir: { name: "list_files", fields: [file("DirectoryPath", "path")] },
  delete_file: { name: "delete_file", fields: [file("TargetFile", "path")] },
  replace_file_content: { name: "replace_file_content", fields: [file("TargetFile", "path")] },
  multi_replace_file_content: { name: "multi_replace_file_content", fields: [file("TargetFile", "path")] },
  run_command: {
    name: "code_execution",
    fields: [field("CommandLine", "code"), constant("language", "bash")],
  },
};

/** Claude's Grep output_mode: `files_with_matches` is Gantry's MatchPerLine false. */
function outputMode() {
  return {
    keys: ["output_mode"],
    to(args: Record<string, unknown>, _root: string, out: Record<string, unknown>) {
      if (typeof args.MatchPerLine === "boolean")
        out.output_mode = args.MatchPerLine ? "content" : "files_with_matches";
    },
    from(input: Record<string, unknown>, out: Record<string, unknown>) {
      if (input.output_mode === "content") out.MatchPerLine = true;
      if (input.output_mode === "files_with_matches") out.MatchPerLine = false;
      return undefined;
    },
  };
}

/** Claude's WebSearch allowed_domains: Gantry's single `domain`. */
function domainList() {
  return {
    keys: ["allowed_domains"],
    to(args: Record<string, unknown>, _root: string, out: Record<string, unknown>) {
      if (typeof args.domain === "string") out.allowed_domains = [args.domain];
    },
    from(input: Record<string, unknown>, out: Record<string, unknown>) {
      const [first] = Array.isArray(input.allowed_domains) ? input.allowed_domains : [];
      if (typeof first === "string") out.domain = first;
      return undefined;
    },
  };
}
