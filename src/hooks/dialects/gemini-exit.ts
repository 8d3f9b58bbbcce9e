import type { HookEvent, HookSessionFacts } from "../events.js";
import type { CommandHookExit } from "../run-command.js";
import { type HandlerVerdict, type HookDialect, isObject, stringOrUndefined } from "./dialect.js";

/**
 * A Gemini command hook's non-zero exit, read as Gemini CLI's hookRunner.ts reads it (executeCommandHook,
 * convertPlainTextToHookOutput): its output is stdout, else stderr, whatever the code. JSON there is the
 * hook's answer; plain text is a warning at exit 1 and a deny at every other code (a crashed guard, a
 * missing script's exit 127: the call does not run, as in Gemini CLI). Exit 2 blocks as Gemini's docs
 * promise, with stderr (else stdout) as the reason. No output at all: undefined, a failure (fail-open).
 */
export function geminiFailedExit(
  dialect: HookDialect,
  exit: CommandHookExit,
  event: HookEvent,
  session: HookSessionFacts,
): HandlerVerdict | undefined {
  const code = exit.exitCode;
  if (code === null || code === 0) return undefined;
  const stderr = exit.stderr.trim();
  const text = exit.stdout.trim() || stderr;
  const answer = answerIn(text);
  if (code === 2) {
    const fromStdout = answer.kind === "object" ? stringOrUndefined(answer.output.reason) : text;
    return dialect.blockedBy(stderr || fromStdout || "", event);
  }
  if (answer.kind === "object") {
    const verdict = dialect.decode(answer.output, event, session);
    const counted = `exited with ${code}; its JSON answer counts, as in Gemini CLI`;
    return { ...verdict, notices: [...(verdict.notices ?? []), counted] };
  }
  // exit 1 is Gemini's non-blocking error, and no output (or a bare JSON value) is no answer there
  if (code === 1 || answer.kind !== "text") return undefined;
  const what = code === 127 ? " (command not found)" : code === 126 ? " (command not executable)" : "";
  const said = `exited with ${code}${what}: ${text.split("\n", 1)[0]}; Gemini CLI reads output with an exit code other than 0, 1 or 2 as a deny`;
  return { ...dialect.blockedBy(text, event), notices: [said] };
}

type Answer =
  | { kind: "none" }
  | { kind: "object"; output: Record<string, unknown> }
  | { kind: "json value" }
  | { kind: "text" };

/** Gemini CLI's parse: JSON, a JSON string holding JSON, or plain text. */
function answerIn(text: string): Answer {
  if (text === "") return { kind: "none" };
  try {
    let parsed: unknown = JSON.parse(text);
    if (typeof parsed === "string") parsed = JSON.parse(parsed);
    return isObject(parsed) ? { kind: "object", output: parsed } : { kind: "json value" };
  } catch {
    return { kind: "text" };
  }
}
