import { AsyncLocalStorage } from "node:async_hooks";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  inputRequired,
  inputResponse,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import type { GantrySession } from "../gantry.js";
import type { PermissionAnswer, PermissionRequest } from "../policy/asker.js";
import { randomUuid } from "../session/random-ids.js";
import type { AnyTool, ToolResult } from "../tools/contract.js";
import { GANTRY_VERSION } from "./session-mcp.js";

/** What an MCP client cannot use without a model or a user of its own: agents, schedules, MCP proxies. */
export function servedOverMcp(tool: AnyTool): boolean {
  const { group, safety, name } = tool.spec;
  return group !== "Subagents" && group !== "MCP" && safety !== "interactive" && name !== "schedule";
}

/** The call being served right now, so the session's asker can reach its client (AsyncLocalStorage). */
interface ServedCall {
  canElicit: boolean;
  ask(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer>;
}

const served = new AsyncLocalStorage<ServedCall>();

/**
 * The asker of a session served over MCP: an ask becomes an elicitation to the client (form mode),
 * or, where the client cannot elicit, a denial saying so (the consent step adds what would allow it).
 */
export function createMcpAsker() {
  return {
    kind: "callback" as const,
    async askPermission(request: PermissionRequest, signal: AbortSignal): Promise<PermissionAnswer> {
      const call = served.getStore();
      if (!call?.canElicit) {
        const why = "The MCP client cannot answer permission questions (it does not support elicitation)";
        return { choice: "deny", unanswerable: why };
      }
      return call.ask(request, signal);
    },
    async askQuestions() {
      return { answered: false as const, reason: "questions are not served over MCP" };
    },
  };
}

const CHOICES = { once: "Allow once", session: "Allow for this session", deny: "Deny" } as const;
const ANSWER_KEY = "permission";
/** A question the client never answers is denied after this long (the call does not hang forever). */
const UNANSWERED_MS = 10 * 60_000;

interface PendingCall {
  result: Promise<ToolResult>;
  /** The question the call waits on, with the way to answer it. */
  asked?: { question: PermissionRequest; answer(given: PermissionAnswer): void };
  /** Wakes `settle` when the call asks. */
  onAsk?: () => void;
  timer?: NodeJS.Timeout;
}

/**
 * `gantry mcp serve`: Gantry's built-in tools as an MCP server, each call run by the session's one
 * pipeline (guard, secret guard, permission policy, hooks). A permission ask is returned to the client
 * as an `input_required` elicitation (protocol 2026-07-28; the SDK turns it into `elicitation/create`
 * for 2025 clients); the call waits in the pipeline until the client's retry brings the answer.
 */
export function createGantryMcpServer(session: GantrySession): Server {
  const server = new Server({ name: "gantry", version: GANTRY_VERSION }, { capabilities: { tools: {} } });
  const pending = new Map<string, PendingCall>();
  const servedNames = () =>
    new Set(
      session.registry
        .listEnabled()
        .filter(servedOverMcp)
        .map((t) => t.spec.name),
    );

  server.setRequestHandler("tools/list", async () => ({
    tools: session.registry.declarations(servedOverMcp).map((d) => ({
      name: d.name,
      description: d.description,
      inputSchema: d.parameters as { type: "object" },
    })),
  }));

  server.setRequestHandler("tools/call", async (request, ctx) => {
    const state = ctx.mcpReq.requestState<string>();
    const resumed = typeof state === "string" ? pending.get(state) : undefined;
    if (resumed && typeof state === "string") {
      pending.delete(state);
      clearTimeout(resumed.timer);
      const asked = resumed.asked;
      resumed.asked = undefined;
      asked?.answer(answerFrom(ctx));
      return settle(resumed);
    }
    const name = request.params.name;
    const canonical = session.registry.lookup(name)?.spec.name ?? name;
    if (!servedNames().has(canonical)) {
      const offered = [...servedNames()].join(", ");
      return textResult(`Tool "${name}" is not served over MCP (gantry mcp serve offers: ${offered}).`, true);
    }
    return settle(startCall(name, request.params.arguments ?? {}, ctx));
  });

  function startCall(name: string, args: Record<string, unknown>, ctx: ServerContext): PendingCall {
    const call: PendingCall = { result: Promise.resolve({ text: "", error: false, metadata: {} }) };
    const servedCall: ServedCall = {
      canElicit: clientCanElicit(server, ctx),
      ask: (question, signal) =>
        new Promise<PermissionAnswer>((resolve) => {
          call.asked = { question, answer: resolve };
          const cancel = () => resolve({ choice: "deny", message: "the call was cancelled" });
          signal.addEventListener("abort", cancel, { once: true });
          call.onAsk?.();
        }),
    };
    call.result = served.run(servedCall, () =>
      session.pipeline.run({ name, args }, { signal: ctx.mcpReq.signal }),
    );
    return call;
  }

  /** The call's result, or an elicitation of its question (the call waits in the pipeline for the retry). */
  async function settle(call: PendingCall) {
    const next = await new Promise<{ result: ToolResult } | { question: PermissionRequest }>((resolve) => {
      call.result.then((result) => resolve({ result }));
      call.onAsk = () => {
        if (call.asked) resolve({ question: call.asked.question });
      };
      call.onAsk();
    });
    if ("result" in next) return toCallToolResult(next.result);
    const id = randomUuid();
    call.timer = setTimeout(() => {
      pending.delete(id);
      call.asked?.answer({ choice: "deny", message: "the MCP client did not answer" });
    }, UNANSWERED_MS);
    call.timer.unref();
    pending.set(id, call);
    return inputRequired({
      inputRequests: { [ANSWER_KEY]: inputRequired.elicit(elicitation(next.question)) },
      requestState: id,
    });
  }

  return server;
}

function elicitation(question: PermissionRequest) {
  const subjects = question.subjects.length > 0 ? `: ${question.subjects.join(", ")}` : "";
  const why = question.decision.reason ? `\n${question.decision.reason}` : "";
  const choices = question.forced ? (["once", "deny"] as const) : (["once", "session", "deny"] as const);
  return {
    message: `Gantry asks to run ${question.tool}${subjects}${why}${question.preview ? `\n\n${question.preview}` : ""}`,
    requestedSchema: {
      type: "object" as const,
      properties: {
        decision: {
          type: "string" as const,
          title: "Allow this call?",
          enum: [...choices],
          enumNames: choices.map((choice) => CHOICES[choice]),
        },
      },
      required: ["decision"],
    },
  };
}

function answerFrom(ctx: ServerContext): PermissionAnswer {
  const view = inputResponse(ctx.mcpReq.inputResponses, ANSWER_KEY);
  if (view.kind !== "elicit") return { choice: "deny", message: "the MCP client sent no answer" };
  if (view.action !== "accept")
    return { choice: "deny", message: `the user chose ${view.action} in the MCP client` };
  const decision = view.content?.decision;
  if (decision === "once" || decision === "session") return { choice: decision };
  return { choice: "deny", message: "the user denied it in the MCP client" };
}

function clientCanElicit(server: Server, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const capabilities =
    (envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ??
    server.getClientCapabilities();
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined;
  // an empty elicitation capability means form mode (the spec's default)
  return elicitation !== undefined && (elicitation.form !== undefined || elicitation.url === undefined);
}

function toCallToolResult(result: ToolResult): CallToolResult {
  const content: CallToolResult["content"] = [{ type: "text", text: result.text }];
  for (const image of result.images ?? [])
    content.push({ type: "image", data: image.data, mimeType: image.mimeType });
  return {
    content,
    isError: result.error,
    structuredContent: {
      ...(result.errorCode ? { errorCode: result.errorCode } : {}),
      metadata: result.metadata,
    },
  };
}

function textResult(text: string, isError: boolean): CallToolResult {
  return { content: [{ type: "text", text }], isError };
}
