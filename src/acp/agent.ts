import { readFileSync } from "node:fs";
import path from "node:path";
import {
  type AgentApp,
  type AgentContext,
  agent as agentApp,
  type ClientCapabilities,
  type InitializeResponse,
  type McpServer,
  PROTOCOL_VERSION,
  RequestError,
  type SessionModeState,
  type StopReason,
} from "@agentclientprotocol/sdk";
import type { AgentRunResult } from "../agent/loop.js";
import type { Settings } from "../config/settings.js";
import { APPROVAL_MODES, type ApprovalMode, MODE_DESCRIPTIONS, parseApprovalMode } from "../policy/modes.js";
import { type Agent, createAgent } from "../sdk/agent.js";
import type { McpServerSpec } from "../sdk/mcp.js";
import type { EditorFiles } from "../tools/environment.js";
import { createToolRegistry } from "../tools/registry.js";
import type { TrustOption } from "../trust/session-trust.js";
import { createAcpAsker } from "./asker.js";
import { promptText } from "./prompt.js";
import { createUpdateSender } from "./updates.js";

export interface AcpAgentOptions {
  /** `--model`, `--base-url`, `--approval-mode`, `--trust`: the defaults of every session the editor opens. */
  model?: string;
  baseUrl?: string;
  approvalMode?: ApprovalMode;
  trust: TrustOption;
  home?: string;
  env?: Record<string, string | undefined>;
  settings?: Settings;
  /** Where notices go (stderr for `gantry --acp`: stdout is the protocol's). */
  log(line: string): void;
}

interface OpenSession {
  agent: Agent;
  updates: ReturnType<typeof createUpdateSender>;
  running?: AbortController;
}

const STOP_REASONS: Record<AgentRunResult["reason"], StopReason | undefined> = {
  completed: "end_turn",
  max_turns: "max_turn_requests",
  max_tokens: "max_tokens",
  aborted: "cancelled",
  error: undefined,
  // a hook ended the run (continue: false), or refused the prompt
  stopped: "end_turn",
  blocked: "refusal",
};

/**
 * `gantry --acp` (SPEC §8): an Agent Client Protocol agent, protocol version 1. A thin adapter: each
 * ACP session is a createAgent agent, each prompt one run of the loop, each ask a
 * `session/request_permission`, each loop event a `session/update`.
 */
export function createAcpAgent(options: AcpAgentOptions): { app: AgentApp; closeAll(): Promise<void> } {
  const sessions = new Map<string, OpenSession>();
  let capabilities: ClientCapabilities = {};
  const find = (sessionId: string) => {
    const found = sessions.get(sessionId);
    if (!found)
      throw new RequestError(
        -32002,
        `no session "${sessionId}" is open here: open it with session/new or session/load`,
      );
    return found;
  };
  const open = async (client: AgentContext, cwd: string, mcpServers: McpServer[], resume?: string) => {
    if (!path.isAbsolute(cwd))
      throw RequestError.invalidParams(undefined, `cwd must be an absolute path, not "${cwd}"`);
    let current: OpenSession | undefined;
    const agent: Agent = await createAgent({
      workspace: cwd,
      trust: options.trust,
      ...(options.home ? { home: options.home } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.settings ? { settings: options.settings } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
      ...(options.approvalMode ? { approvalMode: options.approvalMode } : {}),
      ...(resume ? { resume } : {}),
      mcpServers: mcpServers.map(toSpec),
      ...(capabilities.fs?.readTextFile || capabilities.fs?.writeTextFile
        ? { editorFiles: editorFilesOf(client, () => current?.agent.sessionId ?? "", capabilities.fs) }
        : {}),
      asker: createAcpAsker(
        client,
        () => current?.agent.sessionId ?? "",
        () => ({
          registry: current?.agent.session.registry ?? emptyRegistry,
          root: current?.agent.session.workspace.root ?? cwd,
        }),
      ),
    }).catch((cause: Error) => {
      throw RequestError.invalidParams(undefined, cause.message);
    });
    for (const notice of agent.notices) options.log(notice);
    current = { agent, updates: createUpdateSender(client, agent.sessionId, agent.session) };
    sessions.set(agent.sessionId, current);
    return current;
  };

  const app = agentApp({ name: "gantry" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities ?? {};
      return initializeResponse();
    })
    .onRequest("session/new", async ({ params, client }) => {
      const opened = await open(client, params.cwd, params.mcpServers);
      return { sessionId: opened.agent.sessionId, modes: modesOf(opened.agent) };
    })
    .onRequest("session/load", async ({ params, client }) => {
      // loading a session this connection already has open: the old one is closed first (one writer per file)
      const previous = sessions.get(params.sessionId);
      if (previous) {
        sessions.delete(params.sessionId);
        previous.running?.abort(new Error("the session was loaded again"));
        await previous.agent.close();
      }
      const opened = await open(client, params.cwd, params.mcpServers, params.sessionId);
      opened.updates.replay(opened.agent.conversation.messages);
      await opened.updates.flushed();
      return { modes: modesOf(opened.agent) };
    })
    .onRequest("session/prompt", async ({ params, signal }) => {
      const opened = find(params.sessionId);
      if (opened.running)
        throw RequestError.invalidRequest(undefined, "a prompt is already running in this session");
      const controller = new AbortController();
      const stop = () => controller.abort(new Error("the request was cancelled"));
      signal.addEventListener("abort", stop, { once: true });
      opened.running = controller;
      try {
        const result = await opened.agent.prompt(promptText(params.prompt), {
          signal: controller.signal,
          onEvent: opened.updates.onEvent,
          beforeToolRuns: opened.updates.beforeToolRuns,
        });
        await opened.updates.flushed();
        const stopReason = STOP_REASONS[result.reason];
        if (!stopReason)
          throw RequestError.internalError(undefined, result.error?.message ?? "the run failed");
        return { stopReason };
      } finally {
        opened.running = undefined;
        signal.removeEventListener("abort", stop);
      }
    })
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.running?.abort(new Error("cancelled by the editor"));
    })
    .onRequest("session/set_mode", ({ params }) => {
      const opened = find(params.sessionId);
      const mode = parseApprovalMode(params.modeId);
      if (!mode)
        throw RequestError.invalidParams(
          undefined,
          `unknown mode "${params.modeId}"; the modes are ${APPROVAL_MODES.join(", ")}`,
        );
      try {
        opened.agent.setApprovalMode(mode);
      } catch (cause) {
        throw RequestError.invalidParams(undefined, (cause as Error).message);
      }
      opened.updates.send({ sessionUpdate: "current_mode_update", currentModeId: mode });
      return {};
    });

  return {
    app,
    async closeAll() {
      const open = [...sessions.values()];
      sessions.clear();
      for (const session of open) session.running?.abort(new Error("the editor disconnected"));
      await Promise.allSettled(open.map((session) => session.agent.close()));
    },
  };
}

const emptyRegistry = createToolRegistry();

function initializeResponse(): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: true },
      mcpCapabilities: { http: true, sse: true },
    },
    agentInfo: { name: "gantry", title: "Gantry", version: packageVersion() },
    authMethods: [],
  };
}

/**
 * The client's `fs/read_text_file` (the editor's text of a file, unsaved changes included) and
 * `fs/write_text_file` (an edit's new text into the editor's buffer), each where the client offers it.
 */
function editorFilesOf(
  client: AgentContext,
  sessionId: () => string,
  offered: { readTextFile?: boolean; writeTextFile?: boolean },
): EditorFiles {
  return {
    ...(offered.readTextFile
      ? {
          async readText(absPath: string, signal: AbortSignal) {
            const answer = await client.request(
              "fs/read_text_file",
              { sessionId: sessionId(), path: absPath },
              { cancellationSignal: signal },
            );
            return answer.content;
          },
        }
      : {}),
    ...(offered.writeTextFile
      ? {
          async writeText(absPath: string, content: string, signal: AbortSignal) {
            await client.request(
              "fs/write_text_file",
              { sessionId: sessionId(), path: absPath, content },
              { cancellationSignal: signal },
            );
          },
        }
      : {}),
  };
}

function modesOf(agent: Agent): SessionModeState {
  return {
    currentModeId: agent.session.permissions.mode ?? "default",
    // yolo is not offered when a settings file switched it off (permissions.disableBypassPermissionsMode)
    availableModes: APPROVAL_MODES.filter(
      (mode) => mode !== "yolo" || !agent.session.permissions.yoloDisabledBy,
    ).map((mode) => ({
      id: mode,
      name: mode,
      description: MODE_DESCRIPTIONS[mode],
    })),
  };
}

function toSpec(server: McpServer): McpServerSpec {
  if ("url" in server)
    return {
      name: server.name,
      type: "type" in server && server.type === "sse" ? "sse" : "http",
      url: server.url,
      headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
    };
  return {
    name: server.name,
    command: server.command,
    args: server.args,
    env: Object.fromEntries(server.env.map((variable) => [variable.name, variable.value])),
  };
}

function packageVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    return pkg.version;
  } catch {
    return "unknown";
  }
}
