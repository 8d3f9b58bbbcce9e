import { type AgentEvent, addUsage, type TurnUsage, ZERO_USAGE } from "../../agent/events.js";
import { costOf, priceFor } from "../../models/prices.js";
import type { ModelSpec } from "../../models/provider.js";

/**
 * Tokens this session used, per model (the model can change with /model), and how full the context
 * window is: the footer and /cost read it. Subagents' tokens count too, at the main model's price.
 */
export interface UsageMeter {
  record(event: AgentEvent, modelId: string): void;
  /** The conversation's size as the provider last measured it (tokens), or an estimate. */
  contextTokens: number;
  total(): TurnUsage;
  byModel(): ReadonlyMap<string, TurnUsage>;
  /** Dollars, when every model used has a known price; `partial` when some had none. */
  cost(): { dollars: number; partial: boolean } | undefined;
  reset(): void;
}

export function createUsageMeter(): UsageMeter {
  const usage = new Map<string, TurnUsage>();
  const meter: UsageMeter = {
    contextTokens: 0,
    record(event, modelId) {
      if (event.type !== "usage") return;
      usage.set(modelId, addUsage(usage.get(modelId) ?? ZERO_USAGE, event.usage));
      if (event.agentId === "main") meter.contextTokens = event.usage.inputTokens + event.usage.outputTokens;
    },
    total: () => [...usage.values()].reduce(addUsage, ZERO_USAGE),
    byModel: () => usage,
    cost() {
      let dollars = 0;
      let priced = 0;
      for (const [id, used] of usage) {
        const price = priceFor(specOf(id));
        if (!price) continue;
        dollars += costOf(used, price);
        priced++;
      }
      if (priced === 0) return undefined;
      return { dollars, partial: priced < usage.size };
    },
    reset() {
      usage.clear();
      meter.contextTokens = 0;
    },
  };
  return meter;
}

function specOf(id: string): Pick<ModelSpec, "provider" | "modelId"> {
  const at = id.indexOf(":");
  return { provider: id.slice(0, at) as ModelSpec["provider"], modelId: id.slice(at + 1) };
}

/** 1234 → `1.2k`, 2_500_000 → `2.5M`. */
export function formatTokens(count: number): string {
  if (count < 1_000) return String(count);
  if (count < 1_000_000) return `${(count / 1_000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}

export function formatDollars(dollars: number): string {
  return dollars < 0.01 && dollars > 0 ? `$${dollars.toFixed(4)}` : `$${dollars.toFixed(2)}`;
}
