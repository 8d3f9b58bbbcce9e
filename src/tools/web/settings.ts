import { z } from "zod";
import { lazySchema } from "../../config/lazy-schema.js";
import { WebSearchSettingsSchema } from "./search/settings.js";

/** The `web` section of .agents/settings.json: how read_url_content bounds a fetch, where it may connect; search_web's backend. */
export const WebSettingsSchema = lazySchema(() =>
  z.strictObject({
    timeoutMs: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("limit of one read_url_content call in ms, redirects and body included (default 30000)"),
    maxBytes: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("bytes of a response body read at most (default 5242880); past it the page is cut"),
    allowPrivateNetwork: z
      .union([z.boolean(), z.array(z.string())])
      .optional()
      .describe(
        "true, or the hosts (names, addresses, CIDR ranges such as 10.0.0.0/8) read_url_content may reach on loopback, private, link-local or metadata addresses; default: none",
      ),
    search: WebSearchSettingsSchema().optional().describe("the backend search_web asks"),
  }),
);
export type WebSettings = z.infer<ReturnType<typeof WebSettingsSchema>>;

export interface ResolvedWebSettings {
  timeoutMs: number;
  maxBytes: number;
  /** true: every private address; a list: those hosts only; empty: none. */
  allowPrivateNetwork: true | readonly string[];
}

export const DEFAULT_WEB_TIMEOUT_MS = 30_000;
export const DEFAULT_WEB_MAX_BYTES = 5 * 1024 * 1024;

export function resolveWebSettings(settings: WebSettings = {}): ResolvedWebSettings {
  return {
    timeoutMs: settings.timeoutMs ?? DEFAULT_WEB_TIMEOUT_MS,
    maxBytes: settings.maxBytes ?? DEFAULT_WEB_MAX_BYTES,
    allowPrivateNetwork: settings.allowPrivateNetwork === true ? true : settings.allowPrivateNetwork || [],
  };
}
