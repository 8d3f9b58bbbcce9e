import { applyCompaction, estimateTokens, summariseOlderTurns } from "../agent/context.js";
import type { ConversationMessage } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import { readSessionArtifacts } from "../artifacts/session-artifacts.js";
import { compactionHooks } from "../hooks/loop-bridge.js";
import {
  appendSessionWriter,
  createSessionWriter,
  findSessionFile,
  listSessions,
  loadSession,
  type SessionWriter,
} from "../session/jsonl.js";
import type { ConversationState } from "../session/open.js";
import type { AgentSession } from "./agent-session.js";

/** An open agent session's state, which the controls below change (src/session/open.ts owns it). */
export type OpenState = ConversationState;

type Controls = Pick<AgentSession, "switchModel" | "startOver" | "resume" | "sessions" | "compact">;

/** What the terminal UI's /model, /clear, /resume and /compact do to a session. */
export function sessionControls(state: OpenState): Controls {
  /** Makes `writer` the session file and `messages` the conversation. */
  const switchTo = (writer: SessionWriter, messages: ConversationMessage[]) => {
    state.current.writer.close();
    state.current.writer = writer;
    state.conversation.messages.splice(0, state.conversation.messages.length, ...messages);
    state.session.identify({ sessionId: writer.id, transcriptPath: writer.file });
    state.session.artifacts.replace(writer.file ? readSessionArtifacts(writer.file) : []);
    state.system = state.buildSystem();
    state.bindSubagents();
  };
  return {
    switchModel(spec) {
      const made = state.makeModel(spec);
      if (typeof made === "string") return { ok: false, message: made };
      state.current.model = made;
      state.bindSubagents();
      return { ok: true };
    },
    startOver() {
      const workspace = state.session.workspace.root;
      switchTo(createSessionWriter(state.sessions, { workspace, model: state.current.model.id }), []);
      state.events.restart("clear");
    },
    resume(id) {
      const found = findSessionFile(state.sessions, id);
      if (!found.ok) return found;
      if (found.file === state.current.writer.file)
        return { ok: false, message: `session ${state.current.writer.id} is the one open` };
      const loaded = loadSession(found.file);
      switchTo(appendSessionWriter(found.file, loaded.header.id), loaded.conversation.messages);
      state.events.restart("resume");
      return { ok: true, problems: loaded.problems };
    },
    sessions: () => listSessions(state.sessions),
    compact: (signal, onEvent) => compactNow(state, signal, onEvent),
  };
}

async function compactNow(
  state: OpenState,
  signal: AbortSignal,
  onEvent: (event: AgentEvent) => void,
): Promise<{ ok: true } | { ok: false; message: string }> {
  const { conversation } = state;
  const tokensBefore = estimateTokens(conversation.messages, state.system);
  const agent = { agentId: "main", model: state.current.model.id };
  const hooks = compactionHooks(state.session.hooks, agent, "manual");
  const before = (await hooks.beforeCompact?.(signal)) ?? { instructions: [] };
  if (before.skip) return { ok: false, message: "a PreCompact hook kept the conversation as it is" };
  const outcome = await summariseOlderTurns(conversation, state.current.model, {
    keepRecentTurns: 1,
    signal,
    instructions: before.instructions,
  });
  if (outcome === undefined)
    return { ok: false, message: "nothing to compact yet: the conversation is one turn or less" };
  if (!outcome.ok) return { ok: false, message: `compaction failed: ${outcome.error.message}` };
  applyCompaction(conversation, outcome.summary, outcome.replacedCount);
  const event: AgentEvent = {
    agentId: "main",
    type: "compaction",
    summary: outcome.summary,
    replacedCount: outcome.replacedCount,
    tokensBefore,
  };
  state.current.writer.record(event);
  onEvent(event);
  const after = await hooks.afterCompact?.(outcome.summary, signal);
  if (after && after.context.length > 0) state.events.addContext(after.context);
  return { ok: true };
}
