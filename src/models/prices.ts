import type { TurnUsage } from "../agent/events.js";
import type { ModelSpec } from "./provider.js";

/** US dollars per million tokens. */
export interface TokenPrice {
  input: number;
  output: number;
  /** Input read from the prompt cache; default: the provider's share of `input` (CACHE_SHARES). */
  cacheRead?: number;
  /** Input written to the prompt cache; default: the provider's share of `input`. */
  cacheWrite?: number;
}

/**
 * What cached input costs as a share of the input price, by provider (published terms): Anthropic
 * bills cache reads at 10% and 5-minute cache writes at 125%; OpenAI's cached input is 10% (GPT-5) to
 * 50% (GPT-4o) of the input price, set per model below; Gemini's implicit cache hits are 25%.
 */
const CACHE_SHARES: Partial<Record<ModelSpec["provider"], { read: number; write: number }>> = {
  anthropic: { read: 0.1, write: 1.25 },
  openai: { read: 0.5, write: 1 },
  google: { read: 0.25, write: 1 },
};

/**
 * The providers' published list prices for their hosted models, by model-id prefix (the longest
 * matching prefix wins), with their cached-input rates. Long-context surcharges are not modelled, so a
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
    ["gpt-5-nano", { input: 0.05, output: 0.4, cacheRead: 0.005 }],
    ["gpt-5-mini", { input: 0.25, output: 2, cacheRead: 0.025 }],
    ["gpt-5", { input: 1.25, output: 10, cacheRead: 0.125 }],
    ["gpt-4.1-nano", { input: 0.1, output: 0.4, cacheRead: 0.025 }],
    ["gpt-4.1-mini", { input: 0.4, output: 1.6, cacheRead: 0.1 }],
    ["gpt-4.1", { input: 2, output: 8, cacheRead: 0.5 }],
    ["gpt-4o-mini", { input: 0.15, output: 0.6, cacheRead: 0.075 }],
    ["gpt-4o", { input: 2.5, output: 10, cacheRead: 1.25 }],
    ["o4-mini", { input: 1.1, output: 4.4, cacheRead: 0.275 }],
    ["o3", { input: 2, output: 8, cacheRead: 0.5 }],
  ],
  google: [
    ["gemini-2.5-pro", { input: 1.25, output: 10 }],
    ["gemini-2.5-flash-lite", { input: 0.1, output: 0.4 }],
    ["gemini-2.5-flash", { input: 0.3, output: 2.5 }],
    ["gemini-2.0-flash", { input: 0.1, output: 0.4 }],
  ],
};

/** The model's prices, its cache rates filled in; undefined for a model not listed. */
export function priceFor(spec: Pick<ModelSpec, "provider" | "modelId">): Required<TokenPrice> | undefined {
  const id = spec.modelId.toLowerCase();
  let best: [string, TokenPrice] | undefined;
  for (const entry of PRICES[spec.provider] ?? []) {
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  if (!best) return undefined;
  const price = best[1];
  const shares = CACHE_SHARES[spec.provider] ?? { read: 1, write: 1 };
  return {
    input: price.input,
    output: price.output,
    cacheRead: price.cacheRead ?? price.input * shares.read,
    cacheWrite: price.cacheWrite ?? price.input * shares.write,
  };
}

/** What `usage` cost at `price`, in dollars: cached input at its own rates, the rest at the input price. */
export function costOf(usage: TurnUsage, price: Required<TokenPrice>): number {
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const uncached = Math.max(0, usage.inputTokens - read - write);
  return (
    (uncached * price.input +
      read * price.cacheRead +
      write * price.cacheWrite +
      usage.outputTokens * price.output) /
    1_000_000
  );
}
