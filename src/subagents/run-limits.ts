import type { ModelCallSettings, ModelClient } from "../models/client.js";
import type { AgentRecord } from "./registry.js";

/** Ends the run when the definition's time is up; `expired` says it was the limit, not a kill. */
export function timeLimit(
  record: AgentRecord,
  ms: number,
): { timer: NodeJS.Timeout; ms: number; expired: boolean } {
  const limit = { ms, expired: false, timer: undefined as unknown as NodeJS.Timeout };
  limit.timer = setTimeout(() => {
    limit.expired = true;
    record.controller.abort(new Error(`its ${formatMinutes(ms)} are up`));
  }, ms);
  return limit;
}

export function formatMinutes(ms: number): string {
  const minutes = ms / 60_000;
  return minutes === 1 ? "1 minute" : `${Number(minutes.toFixed(2))} minutes`;
}

/** The model, with the agent file's generation settings on every turn that sets none of its own. */
export function withModelSettings(model: ModelClient, settings: ModelCallSettings): ModelClient {
  return {
    id: model.id,
    contextWindow: model.contextWindow,
    streamTurn: (request) => model.streamTurn({ ...request, settings: { ...settings, ...request.settings } }),
  };
}
