import type { ModelSpec } from "./provider.js";

/** Context window sizes in tokens, by model-id prefix (the longest matching prefix wins). */
const CONTEXT_WINDOWS: readonly [prefix: string, tokens: number][] = [
  ["gemini-1.5-pro", 2_097_152],
  ["gemini-", 1_048_576],
  ["claude-", 200_000],
  ["gpt-4.1", 1_047_576],
  ["gpt-4o", 128_000],
  ["gpt-4-turbo", 128_000],
  ["gpt-5", 400_000],
  ["o1", 200_000],
  ["o3", 200_000],
  ["o4", 200_000],
  ["qwen3-coder", 262_144],
  ["qwen", 32_768],
  ["llama", 128_000],
  ["deepseek", 128_000],
];

/** What a local server's model gets when nothing is known: local servers often run with small windows. */
const DEFAULT_LOCAL_WINDOW = 32_768;
const DEFAULT_WINDOW = 128_000;

/** The settings' `contextWindow` wins; then the table; then a conservative default. */
export function contextWindowFor(spec: ModelSpec, override?: number): number {
  if (override !== undefined && override > 0) return override;
  const id = spec.modelId.toLowerCase();
  let best: [string, number] | undefined;
  for (const entry of CONTEXT_WINDOWS) {
    if (id.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  }
  if (best) return best[1];
  return spec.provider === "openai-compatible" ? DEFAULT_LOCAL_WINDOW : DEFAULT_WINDOW;
}
