import { z } from "zod";
import { lazySchema } from "../../../config/lazy-schema.js";

/** The search services search_web can use (issue 16): self-hosted SearXNG, two paid APIs, the model's own. */
export const SEARCH_BACKENDS = ["searxng", "brave", "tavily", "model"] as const;
export type SearchBackendName = (typeof SEARCH_BACKENDS)[number];

/** `web.search` in .agents/settings.json: which backend search_web asks, and where. A loosening section. */
export const WebSearchSettingsSchema = lazySchema(() =>
  z.strictObject({
    backend: z
      .enum(SEARCH_BACKENDS)
      .describe("searxng (your instance), brave, tavily, or model (the model provider's own web search)"),
    baseUrl: z
      .string()
      .optional()
      .describe(
        "overrides the backend's public endpoint (self-hosting, proxies, tests); required for searxng",
      ),
    apiKeyEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable, e.g. BRAVE_API_KEY")
      .optional()
      .describe(
        "the environment variable holding the key (default BRAVE_API_KEY, TAVILY_API_KEY, or the model provider's); never the key itself",
      ),
    model: z
      .string()
      .optional()
      .describe("backend model: the provider:model-id that searches (default: the session's model)"),
    maxResults: z
      .number()
      .int()
      .min(1)
      .max(20)
      .optional()
      .describe("results one search returns at most (default 8)"),
  }),
);
export type WebSearchSettings = z.infer<ReturnType<typeof WebSearchSettingsSchema>>;

export const DEFAULT_MAX_RESULTS = 8;

/** Each HTTP API's public endpoint and the variable its key is read from by default. */
export const HTTP_BACKEND_DEFAULTS: Record<
  Exclude<SearchBackendName, "model">,
  { label: string; endpoint?: string; keyEnv?: string }
> = {
  searxng: { label: "SearXNG" },
  brave: { label: "Brave Search", endpoint: "https://api.search.brave.com/res/v1", keyEnv: "BRAVE_API_KEY" },
  tavily: { label: "Tavily", endpoint: "https://api.tavily.com", keyEnv: "TAVILY_API_KEY" },
};

/** What to write when search_web has no backend: every choice, ready to paste. */
export const HOW_TO_CONFIGURE_SEARCH = `search_web has no search backend configured. Add one to ~/.agents/settings.json:
  {"web": {"search": {"backend": "searxng", "baseUrl": "http://localhost:8888"}}}   (your SearXNG, with "json" in its search.formats)
  {"web": {"search": {"backend": "brave"}}}     (key in BRAVE_API_KEY, or name another variable in "apiKeyEnv")
  {"web": {"search": {"backend": "tavily"}}}    (key in TAVILY_API_KEY, or "apiKeyEnv")
  {"web": {"search": {"backend": "model"}}}     (the model provider's own search: google, openai or anthropic models; "model" picks another model to search with)`;
