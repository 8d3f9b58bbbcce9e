import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from "@modelcontextprotocol/client";
import type { McpServerConfig } from "./config.js";
import { loadMcpSdk } from "./load-sdk.js";
import { explainOAuthFailure } from "./start-errors.js";

/** What is kept per remote server: its client registration, its tokens and a flow's PKCE verifier. */
interface StoredAuth {
  client?: StoredOAuthClientInformation;
  tokens?: StoredOAuthTokens;
  verifier?: string;
}

/** `~/.agents/mcp-oauth.json`, readable by the user only: the user's credentials, never the workspace's. */
export function oauthStoreFile(home: string): string {
  return path.join(home, ".agents", "mcp-oauth.json");
}

function keyOf(config: McpServerConfig): string {
  return `${config.name} ${config.transport.kind === "stdio" ? "" : config.transport.url}`;
}

function readStore(home: string): Record<string, StoredAuth> {
  try {
    return JSON.parse(readFileSync(oauthStoreFile(home), "utf8")) as Record<string, StoredAuth>;
  } catch {
    return {};
  }
}

function updateStore(home: string, key: string, change: (entry: StoredAuth) => StoredAuth | undefined): void {
  const store = readStore(home);
  const next = change(store[key] ?? {});
  if (next) store[key] = next;
  else delete store[key];
  const file = oauthStoreFile(home);
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.gantry-tmp-${process.pid}`;
  writeFileSync(temp, `${JSON.stringify(store, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

export interface OAuthProviderOptions {
  /** Where the authorization server sends the browser back (the login flow's loopback listener). */
  redirectUrl?: string;
  /** Shows the user the page to sign in on; without it (a session) signing in is `gantry mcp login`. */
  onAuthorizationUrl?: (url: URL) => void | Promise<void>;
}

/** The SDK's OAuth client provider, for one remote server, with its state in the user's home. */
export function createMcpOAuthProvider(
  config: McpServerConfig,
  home: string,
  options: OAuthProviderOptions = {},
): OAuthClientProvider {
  const key = keyOf(config);
  const stored = () => readStore(home)[key] ?? {};
  const redirectUrl = options.redirectUrl ?? "http://127.0.0.1/callback";
  const metadata: OAuthClientMetadata = {
    client_name: "Gantry",
    redirect_uris: [redirectUrl],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: config.oauth?.clientSecret ? "client_secret_post" : "none",
    ...(config.oauth?.scopes ? { scope: config.oauth.scopes.join(" ") } : {}),
  };
  return {
    get redirectUrl() {
      return redirectUrl;
    },
    get clientMetadata() {
      return metadata;
    },
    clientInformation() {
      if (config.oauth?.clientId)
        return {
          client_id: config.oauth.clientId,
          ...(config.oauth.clientSecret ? { client_secret: config.oauth.clientSecret } : {}),
        };
      return stored().client;
    },
    saveClientInformation: (client) => updateStore(home, key, (entry) => ({ ...entry, client })),
    tokens: () => stored().tokens,
    saveTokens: (tokens) => updateStore(home, key, (entry) => ({ ...entry, tokens })),
    async redirectToAuthorization(url) {
      if (!options.onAuthorizationUrl)
        throw new Error(
          `MCP server "${config.name}" needs you to sign in: run "gantry mcp login ${config.name}"`,
        );
      await options.onAuthorizationUrl(url);
    },
    saveCodeVerifier: (verifier) => updateStore(home, key, (entry) => ({ ...entry, verifier })),
    codeVerifier() {
      const verifier = stored().verifier;
      if (!verifier) throw new Error("no OAuth flow is under way (its code verifier is missing)");
      return verifier;
    },
    invalidateCredentials(scope) {
      updateStore(home, key, (entry) => {
        if (scope === "all") return undefined;
        const next = { ...entry };
        if (scope === "client") delete next.client;
        if (scope === "tokens") delete next.tokens;
        if (scope === "verifier") delete next.verifier;
        return next;
      });
    },
  };
}

/** Forgets a server's tokens and registration (`gantry mcp logout`); false when none were kept. */
export function forgetMcpCredentials(config: McpServerConfig, home: string): boolean {
  const had = readStore(home)[keyOf(config)] !== undefined;
  if (had) updateStore(home, keyOf(config), () => undefined);
  return had;
}

const LOGIN_TIMEOUT_MS = 5 * 60_000;

/**
 * `gantry mcp login`: the OAuth authorization-code flow (with PKCE, through the SDK's `auth`) for one
 * remote server: a listener on 127.0.0.1 takes the browser's redirect, the tokens are kept in the home.
 */
export async function loginMcpServer(
  config: McpServerConfig,
  home: string,
  open: (url: URL) => void | Promise<void>,
): Promise<"authorized" | "already"> {
  if (config.transport.kind === "stdio")
    throw new Error(`"${config.name}" is a stdio server: it has no sign-in`);
  const serverUrl = config.transport.url;
  const [sdk, { createServer }] = await Promise.all([loadMcpSdk(), import("node:http")]);
  const expectedState = randomBytes(16).toString("hex");
  let deliver: (code: string) => void = () => undefined;
  let refuse: (error: Error) => void = () => undefined;
  const code = new Promise<string>((resolve, reject) => {
    deliver = resolve;
    refuse = reject;
  });
  const listener = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://127.0.0.1");
    const given = url.searchParams.get("code");
    const ok = url.pathname === "/callback" && given && url.searchParams.get("state") === expectedState;
    response.writeHead(ok ? 200 : 400, { "content-type": "text/plain; charset=utf-8" });
    response.end(ok ? "Signed in: you can close this page and return to Gantry.\n" : "Sign-in failed.\n");
    if (ok) deliver(given);
    else if (url.pathname === "/callback")
      refuse(
        new Error(
          `sign-in failed: ${url.searchParams.get("error") ?? "the answer did not match this sign-in"}`,
        ),
      );
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  const address = listener.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const timer = setTimeout(() => refuse(new Error("no sign-in within 5 minutes")), LOGIN_TIMEOUT_MS);
  try {
    const provider = {
      ...createMcpOAuthProvider(config, home, {
        redirectUrl: `http://127.0.0.1:${port}/callback`,
        onAuthorizationUrl: open,
      }),
      state: () => expectedState,
    };
    const first = await sdk.auth(provider, { serverUrl }).catch(async (cause: unknown) => {
      if (!(cause instanceof sdk.OAuthError || cause instanceof sdk.OAuthClientFlowError)) throw cause;
      throw new Error(await explainOAuthFailure(sdk, cause, serverUrl));
    });
    if (first === "AUTHORIZED") return "already";
    const result = await sdk.auth(provider, { serverUrl, authorizationCode: await code });
    if (result !== "AUTHORIZED") throw new Error("the authorization server did not give a token");
    return "authorized";
  } finally {
    clearTimeout(timer);
    listener.close();
  }
}
