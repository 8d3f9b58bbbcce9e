import path from "node:path";
import type { ToolCallFacts } from "../events.js";
import type { DialectTool, FieldMap } from "./tool-map.js";

type Args = Record<string, unknown>;

/** A Gantry call that runs a shell command of the model's, seen as the harness's shell tool sees one. */
interface ShellView {
  /** What the shell will run, as the view's `command`. */
  command(args: Args, root: string): string;
  /** A rewritten command back into the call's arguments, or why it cannot be. */
  back(command: string, args: Args): { args: Args } | { problem: string };
  /** What the call is, for a refusal's wording. */
  what: string;
}

const TRAILING_NEWLINES = /\n+$/;

/**
 * Calls that run a shell command though they are not run_command: in Claude Code, Gemini CLI and Qwen
 * Code every shell command goes through the one shell tool, so a guard keyed on it must see these too.
 */
const SHELL_VIEWS: Record<string, (args: Args) => ShellView | undefined> = {
  // input typed into a running shell task runs as a command line there
  manage_task: (args) =>
    args.Action === "send_input" && typeof args.Input === "string"
      ? {
          what: "input to a running task",
          command: (a) => String(a.Input).replace(TRAILING_NEWLINES, ""),
          back: (command, a) => ({
            args: { ...a, Input: command + (TRAILING_NEWLINES.exec(String(a.Input))?.[0] ?? "") },
          }),
        }
      : undefined,
  // a TimerCondition is a shell command run until it succeeds
  schedule: (args) =>
    typeof args.TimerCondition === "string"
      ? {
          what: "a schedule's TimerCondition",
          command: (a) => String(a.TimerCondition),
          back: (command, a) => ({ args: { ...a, TimerCondition: command } }),
        }
      : undefined,
  // Claude Code deletes with Bash `rm`: a guard that blocks rm sees the deletion
  delete_file: (args) =>
    typeof args.TargetFile === "string"
      ? {
          what: "a file deletion",
          command: (a, root) => `rm ${shellQuote(path.resolve(root, String(a.TargetFile)))}`,
          back: (command, a) => {
            const target = rmTarget(command);
            if (target === undefined)
              return {
                problem: `a deletion can only become "rm <one file>", not ${JSON.stringify(command)}`,
              };
            return { args: { ...a, TargetFile: target } };
          },
        }
      : undefined,
};

/**
 * The dialect's shape for a call: its table's entry, else, for a call that runs a shell command
 * (manage_task send_input, a schedule's TimerCondition, delete_file), the harness's shell tool with
 * `{ command }`; a rewrite of that command goes back into the call, or refuses it.
 */
export function dialectToolFor(
  tools: Record<string, DialectTool>,
  call: ToolCallFacts,
): DialectTool | undefined {
  const own = tools[call.name];
  if (own) return own;
  const shell = tools.run_command;
  const view = SHELL_VIEWS[call.name]?.(call.args);
  if (!shell || !view) return undefined;
  return {
    name: shell.name,
    ...(shell.aliases ? { aliases: shell.aliases } : {}),
    fields: [viewField(view)],
  };
}

function viewField(view: ShellView): FieldMap {
  return {
    keys: ["command"],
    to(args, root, out) {
      out.command = view.command(args, root);
    },
    from(input, out) {
      const extra = Object.keys(input).filter((key) => key !== "command" && key !== "description");
      if (extra.length > 0)
        return `it sets ${extra.join(", ")}, which ${view.what} cannot take (only the command can change)`;
      if (input.command === undefined) return undefined;
      if (typeof input.command !== "string") return "its command is not a string";
      const back = view.back(input.command, out);
      if ("problem" in back) return back.problem;
      Object.assign(out, back.args);
      return undefined;
    },
  };
}

function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/** The one file of `rm [--] <file>` (quoted or not), or undefined for any other command line. */
function rmTarget(command: string): string | undefined {
  const match = /^\s*rm\s+(?:--\s+)?(?:'((?:[^']|'\\'')*)'|"([^"$`\\]*)"|([^\s'"$`\\;&|<>()*?]+))\s*$/.exec(
    command,
  );
  if (!match) return undefined;
  return match[1] !== undefined ? match[1].replaceAll("'\\''", "'") : (match[2] ?? match[3]);
}
