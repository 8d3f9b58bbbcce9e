import { describe, expect, it } from "vitest";
import { costOf, priceFor } from "../../src/models/prices.js";

describe("list prices", () => {
  it("bills cached input at the provider's cache rates and the rest at the input price", () => {
    const sonnet = priceFor({ provider: "anthropic", modelId: "claude-sonnet-4-5" });
    expect(sonnet).toEqual({ input: 3, output: 15, cacheRead: expect.closeTo(0.3, 10), cacheWrite: 3.75 });
    // 50 uncached × $3 + 800 read × $0.30 + 150 written × $3.75 + 20 out × $15, per million
    const cost = costOf(
      { inputTokens: 1_000, outputTokens: 20, cacheReadTokens: 800, cacheWriteTokens: 150 },
      sonnet!,
    );
    expect(cost).toBeCloseTo(0.0012525, 10);
  });

  it("takes a model's own cached-input price where it has one, and the provider's share elsewhere", () => {
    expect(priceFor({ provider: "openai", modelId: "gpt-5-2025-08-07" })?.cacheRead).toBe(0.125);
    expect(priceFor({ provider: "openai", modelId: "gpt-4o" })?.cacheRead).toBe(1.25);
    expect(priceFor({ provider: "google", modelId: "gemini-2.5-pro" })?.cacheRead).toBeCloseTo(0.3125, 10);
  });

  it("without cached tokens, costs input and output at their prices; an unlisted model has no price", () => {
    const mini = priceFor({ provider: "openai", modelId: "gpt-5-mini" });
    expect(costOf({ inputTokens: 1_000_000, outputTokens: 1_000_000 }, mini!)).toBeCloseTo(2.25, 10);
    expect(priceFor({ provider: "openai-compatible", modelId: "local" })).toBeUndefined();
  });
});
