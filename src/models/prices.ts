import type { TurnUsage } from "../agent/events.js";
import type { ModelSpec } from "./provider.js";

/** US dollars per million tokens. */
export interface TokenPrice {
  input: number;
  output: number;
}

/**
 * The providers' published list prices for their hosted models, by model-id prefix (the longest
 * matching prefix wins). Cached-token discounts and long-context surcharges are not modelled, so a
 * cost shown is an estimate; a model not listed (and every openai-compatible server) shows none.
 */
const PRICES: Partial<Record<ModelSpec["provider"], readonly [string, TokenPrice][]>> = {
  anthropic: [
    ["claude-opus-4-5", { input: 5, output: 25 }],
    ["claude-opus-4", { input: 15, output: 75 }],
    ["claude-sonnet-4", { input: 3, output: 15 }],
    ["claude-3-7-sonnet", { input: 3, output: 15 }],
    ["claude-3-5-sonnet", { input: 3, output: 15 }],
    ["claude-haiku-4-5", { input: 1, output: 5 }],
    ["claude-3-5-haiku", { input: 0.8, output: 4 }],
  ],
  openai: [
    ["gpt-5-nano", { input: 0.05, output: 0.4 }],
    ["gpt-5-mini", { input: 0.25, output: 2 }],
    ["gpt-5", { input: 1.25, output: 10 }],
    ["gpt-4.1-nano", { input: 0.1, output: 0.4 }],
    ["gpt-4.1-mini", { input: 0.4, output: 1.6 }],
    ["gpt-4.1", { input: 2, output: 8 }],
    ["gpt-4o-mini", { input: 0.15, output: 0.6 }],
    ["gpt-4o", { input: 2.5, output: 10 }],
    ["o4-mini", { input: 1.1, output: 4.4 }],
    ["o3", { input: 2, output: 8 }],
  ],
  google: [
    ["gemini-2.5-pro", { input: 1.25, output: 10 }],
    ["gemini-2.5-flash-lite", { input: 0.1, output: 0.4 }],
    ["gemini-2.5-flash", { input: 0.3, output: 2.5 }],
    ["gemini-2.0-flash", { input: 0.1, output: 0.4 }],
  ],
};

export function priceFor(spec: Pick<ModelSpec, "provider" | "modelId">): TokenPrice | undefined {
  const id = spec.modelId.toLowerCase();
  let best: [string, TokenPrice] | undefined;
  for (const entry of PRICES[spec.provider] ?? []) {
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  return best?.[1];
}

/** What `usage` cost at `price`, in dollars. */
export function costOf(usage: TurnUsage, price: TokenPrice): number {
  return (usage.inputTokens * price.input + usage.outputTokens * price.output) / 1_000_000;
}
