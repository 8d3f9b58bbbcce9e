import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogle } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { boundedFetch } from "./bounded-fetch.js";
import { baseUrlProblem, endpointCheckingFetch } from "./endpoint.js";

export const PROVIDERS = ["google", "anthropic", "openai", "openai-compatible"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

export interface ModelSpec {
  provider: ProviderName;
  modelId: string;
}

/** Where a model comes from: `--model`/`--base-url` first, then settings; keys from the environment. */
export interface ModelConfig {
  /** `provider:model-id` */
  model?: string;
  baseUrl?: string;
  env: Record<string, string | undefined>;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; message: string };

const PROVIDER_ALIASES: Record<string, ProviderName> = { gemini: "google" };

/** Environment variables holding each provider's key, in order of preference. */
export const API_KEY_VARIABLES: Record<ProviderName, readonly string[]> = {
  google: ["GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  openai: ["OPENAI_API_KEY"],
  "openai-compatible": ["OPENAI_COMPATIBLE_API_KEY"],
};

export const HOW_TO_CONFIGURE_A_MODEL = `No model is configured. Choose one of:
  gantry --model google:gemini-2.5-pro ...            (key in GEMINI_API_KEY)
  gantry --model anthropic:claude-sonnet-4-5 ...      (key in ANTHROPIC_API_KEY)
  gantry --model openai:gpt-4.1 ...                   (key in OPENAI_API_KEY)
  gantry --model openai-compatible:qwen3 --base-url http://localhost:11434/v1 ...
or set it once in ~/.agents/settings.json (or in .agents/settings.json of a folder you trust):
  { "model": "anthropic:claude-sonnet-4-5" }
  { "model": "openai-compatible:qwen3", "baseUrl": "http://localhost:11434/v1" }`;

export function parseModelSpec(text: string): Outcome<ModelSpec> {
  const colon = text.indexOf(":");
  const providerText = colon < 0 ? "" : text.slice(0, colon).trim().toLowerCase();
  const modelId = colon < 0 ? "" : text.slice(colon + 1).trim();
  const provider = PROVIDER_ALIASES[providerText] ?? providerText;
  if (!(PROVIDERS as readonly string[]).includes(provider) || modelId === "") {
    return {
      ok: false,
      message: `model "${text}" is not provider:model-id; providers: ${PROVIDERS.join(", ")} (e.g. anthropic:claude-sonnet-4-5)`,
    };
  }
  return { ok: true, value: { provider: provider as ProviderName, modelId } };
}

export function apiKeyFor(provider: ProviderName, env: ModelConfig["env"]): string | undefined {
  for (const name of API_KEY_VARIABLES[provider]) {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
  }
  return undefined;
}

/** The one place a provider client is made: `provider:model-id` → an AI SDK language model. */
export function createLanguageModel(config: ModelConfig): Outcome<{ spec: ModelSpec; model: LanguageModel }> {
  if (config.model === undefined || config.model.trim() === "")
    return { ok: false, message: HOW_TO_CONFIGURE_A_MODEL };
  const parsed = parseModelSpec(config.model);
  if (!parsed.ok) return parsed;
  const spec = parsed.value;
  const apiKey = apiKeyFor(spec.provider, config.env);
  const baseURL = config.baseUrl;
  const badBaseUrl = baseURL === undefined ? undefined : baseUrlProblem(baseURL);
  if (badBaseUrl) return { ok: false, message: badBaseUrl };
  const fetch = endpointCheckingFetch(boundedFetch);
  if (spec.provider !== "openai-compatible" && apiKey === undefined) {
    return {
      ok: false,
      message: `${spec.provider} needs an API key: set ${API_KEY_VARIABLES[spec.provider].join(" or ")}`,
    };
  }
  switch (spec.provider) {
    case "google":
      return { ok: true, value: { spec, model: createGoogle({ apiKey, baseURL, fetch })(spec.modelId) } };
    case "anthropic":
      return { ok: true, value: { spec, model: createAnthropic({ apiKey, baseURL, fetch })(spec.modelId) } };
    case "openai":
      // chat completions: the protocol every OpenAI-compatible server speaks too
      return {
        ok: true,
        value: { spec, model: createOpenAI({ apiKey, baseURL, fetch }).chat(spec.modelId) },
      };
    case "openai-compatible": {
      if (baseURL === undefined) {
        return {
          ok: false,
          message: `openai-compatible needs a server: add --base-url (Ollama: http://localhost:11434/v1, llama.cpp: http://localhost:8080/v1, vLLM: http://localhost:8000/v1, LM Studio: http://localhost:1234/v1) or "baseUrl" in .agents/settings.json`,
        };
      }
      const provider = createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        apiKey,
        fetch,
        includeUsage: true,
      });
      return { ok: true, value: { spec, model: provider.chatModel(spec.modelId) } };
    }
  }
}
