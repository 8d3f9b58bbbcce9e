import type { AgentContext, PermissionOption } from "@agentclientprotocol/sdk";
import type { Asker, PermissionAnswer, PermissionChoice, PermissionRequest } from "../policy/asker.js";
import { createHeadlessAsker } from "../policy/asker.js";
import { randomUuid } from "../session/random-ids.js";
import type { ToolRegistry } from "../tools/registry.js";
import { viewOf } from "./tool-calls.js";

/** The editor answers every ask: `session/request_permission`, with Gantry's four answers as its options. */
export function createAcpAsker(
  client: AgentContext,
  sessionId: () => string,
  context: () => { registry: ToolRegistry; root: string },
): Asker {
  const headless = createHeadlessAsker();
  return {
    kind: "callback",
    async askPermission(request, signal): Promise<PermissionAnswer> {
      const { registry, root } = context();
      const call = { callId: request.callId ?? randomUuid(), name: request.tool, args: request.args };
      const view = viewOf(call, registry.lookup(request.tool), root);
      const response = await client.request(
        "session/request_permission",
        {
          sessionId: sessionId(),
          toolCall: {
            toolCallId: call.callId,
            title: view.title,
            kind: view.kind,
            status: "pending",
            rawInput: request.args,
            locations: view.locations,
            content: request.preview
              ? [{ type: "content", content: { type: "text", text: request.preview } }]
              : [],
          },
          options: optionsFor(request),
        },
        { cancellationSignal: signal },
      );
      const outcome = response.outcome;
      if (outcome.outcome === "cancelled") return { choice: "deny", message: "the question was cancelled" };
      const choice = CHOICES[outcome.optionId];
      if (!choice)
        return {
          choice: "deny",
          message: `the editor answered with an unknown option "${outcome.optionId}"`,
        };
      return { choice };
    },
    // ACP has no question dialog in protocol version 1: the model is told nobody can answer
    answersQuestions: false,
    askQuestions: (questions, signal) => headless.askQuestions(questions, signal),
  };
}

const CHOICES: Record<string, PermissionChoice> = {
  once: "once",
  session: "session",
  always: "always",
  deny: "deny",
};

function optionsFor(request: PermissionRequest): PermissionOption[] {
  const recordable = !request.forced && request.grantRules.length > 0;
  return [
    { optionId: "once", name: "Allow once", kind: "allow_once" },
    ...(recordable
      ? [
          {
            optionId: "session",
            name: `Allow ${request.grantRules.join(", ")} for this session`,
            kind: "allow_always" as const,
          },
          {
            optionId: "always",
            name: `Always allow ${request.grantRules.join(", ")} in this folder`,
            kind: "allow_always" as const,
          },
        ]
      : []),
    { optionId: "deny", name: "Reject", kind: "reject_once" },
  ];
}
