import type { AgentContext, SessionUpdate } from "@agentclientprotocol/sdk";
import type { ConversationMessage, ToolCallRecord } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import type { GantrySession } from "../gantry.js";
import type { PlanStep } from "../tools/interaction/update-plan.js";
import { type EditSnapshot, resultContent, snapshotBeforeEdit, viewOf } from "./tool-calls.js";

/**
 * Sends one session's `session/update` notifications in the order the loop's events came (the
 * connection does not wait for one notification before the next, so they are chained here).
 */
export function createUpdateSender(client: AgentContext, sessionId: string, session: GantrySession) {
  let sent: Promise<void> = Promise.resolve();
  const before = new Map<string, EditSnapshot | undefined>();
  const send = (update: SessionUpdate | (() => Promise<SessionUpdate | undefined>)) => {
    sent = sent
      .then(async () => {
        const value = typeof update === "function" ? await update() : update;
        if (value) await client.notify("session/update", { sessionId, update: value });
      })
      .catch(() => undefined); // a closed connection: nothing more to tell
  };
  const root = session.workspace.root;
  const toolOf = (name: string) => session.pipeline.registry.lookup(name);

  const announce = (call: ToolCallRecord) => {
    const view = viewOf(call, toolOf(call.name), root);
    send({
      sessionUpdate: "tool_call",
      toolCallId: call.callId,
      status: "pending",
      rawInput: call.args,
      ...view,
    });
  };

  /** update_plan's steps as the session's plan (the editor replaces the whole plan each time). */
  const sendPlan = (plan: unknown) => {
    if (!Array.isArray(plan)) return;
    const entries = (plan as PlanStep[]).map((step) => ({
      content: step.step,
      status: step.status,
      priority: "medium" as const,
    }));
    send({ sessionUpdate: "plan", entries });
  };

  return {
    /** The loop's events, as ACP updates. */
    onEvent(event: AgentEvent) {
      if (event.agentId !== "main") return;
      switch (event.type) {
        case "text_delta":
          return send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: event.text } });
        case "thinking":
          return send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: event.text } });
        case "tool_call":
          return announce(event.call);
        case "tool_start":
          return send({ sessionUpdate: "tool_call_update", toolCallId: event.callId, status: "in_progress" });
        case "tool_update":
          return send({
            sessionUpdate: "tool_call_update",
            toolCallId: event.callId,
            content: [{ type: "content", content: { type: "text", text: event.partial } }],
          });
        case "tool_result":
          if (toolOf(event.call.name)?.spec.name === "update_plan") sendPlan(event.result.metadata.plan);
          return send(async () => ({
            sessionUpdate: "tool_call_update",
            toolCallId: event.call.callId,
            status: event.result.error ? "failed" : "completed",
            content: await resultContent(event.result, before.get(event.call.callId)),
            rawOutput: {
              text: event.result.text,
              error: event.result.error,
              metadata: event.result.metadata,
            },
          }));
      }
    },
    /** Reads the file an allowed edit will change, just before it runs, for the diff the editor shows. */
    async beforeToolRuns(call: ToolCallRecord) {
      before.set(call.callId, await snapshotBeforeEdit(call, toolOf(call.name), session.workspace));
    },
    /** A saved conversation replayed for `session/load`: the user's and the agent's messages and the calls. */
    replay(messages: readonly ConversationMessage[]) {
      for (const message of messages) {
        if (message.role === "user" && message.source === undefined)
          send({ sessionUpdate: "user_message_chunk", content: { type: "text", text: message.text } });
        if (message.role === "assistant") {
          if (message.thinking)
            send({ sessionUpdate: "agent_thought_chunk", content: { type: "text", text: message.thinking } });
          if (message.text)
            send({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: message.text } });
          for (const call of message.toolCalls) announce(call);
        }
        if (message.role === "tool") {
          for (const result of message.results) {
            send({
              sessionUpdate: "tool_call_update",
              toolCallId: result.callId,
              status: result.error ? "failed" : "completed",
              content: [{ type: "content", content: { type: "text", text: result.text } }],
            });
          }
        }
      }
    },
    send,
    /** Resolves once every update so far has been written. */
    flushed: () => sent,
  };
}
