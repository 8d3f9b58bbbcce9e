import type { Asker, PermissionAnswer, PermissionRequest } from "../policy/asker.js";
import type { ToolCallFacts } from "./events.js";
import type { SessionHooks } from "./lifecycle.js";

/** A tool's canonical name and aliases, for hooks matched by tool name. */
export type ToolNamesLookup = (name: string) => { name: string; aliases: readonly string[] } | undefined;

/**
 * The asker as hooks see it: before the user is asked, PermissionRequest hooks may answer for them (allow
 * runs the call once, with the input it changed, and adds the session allow rules it gave; deny refuses
 * it with the hook's message); when the question does reach a person,
 * Notification hooks hear that a permission question is waiting (they are not waited for).
 */
export function withPermissionHooks(asker: Asker, hooks: SessionHooks, lookup: ToolNamesLookup): Asker {
  // always wrapped, and asked at each question: /reload-hooks may add such hooks mid-session
  return {
    kind: asker.kind,
    askQuestions: (questions, signal) => asker.askQuestions(questions, signal),
    async askPermission(request, signal): Promise<PermissionAnswer> {
      const answered = await answerByHook(hooks, request, lookup, signal);
      if (answered) return answered;
      if (asker.kind !== "headless") {
        hooks.notify({
          kind: "notification",
          agentId: "main",
          notificationType: "permission_prompt",
          message: `Gantry needs your permission to use ${request.tool}`,
          toolName: request.tool,
        });
      }
      return asker.askPermission(request, signal);
    },
  };
}

async function answerByHook(
  hooks: SessionHooks,
  request: PermissionRequest,
  lookup: ToolNamesLookup,
  signal: AbortSignal,
): Promise<PermissionAnswer | undefined> {
  if (!hooks.has("permission_request")) return undefined;
  const tool = lookup(request.tool);
  const call: ToolCallFacts = {
    callId: "",
    agentId: "main",
    name: tool?.name ?? request.tool,
    requestedName: request.tool,
    aliases: tool?.aliases ?? [],
    args: request.args,
  };
  const outcome = await hooks.fire({ kind: "permission_request", call, subjects: request.subjects }, signal);
  const permission = outcome.permission;
  if (!permission) return undefined;
  if (permission.behavior === "allow") {
    return {
      choice: "once",
      answeredBy: permission.source,
      ...(permission.args ? { args: permission.args } : {}),
      ...(permission.sessionRules ? { sessionRules: permission.sessionRules } : {}),
    };
  }
  return {
    choice: "deny",
    answeredBy: permission.source,
    message: permission.message ?? "the hook denied the permission",
    ...(permission.interrupt ? { interrupt: true } : {}),
  };
}
