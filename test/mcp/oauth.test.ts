import { createHash } from "node:crypto";
import { statSync } from "node:fs";
import { createServer, request as httpRequest, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createGantrySession, type GantrySession } from "../../src/gantry.js";
import { loginMcpServer, oauthStoreFile } from "../../src/mcp/oauth.js";
import { createTempWorkspace, type TempWorkspace } from "../support/workspace.js";
import { startEverythingHttp } from "./support.js";

let ws: TempWorkspace;
let session: GantrySession | undefined;
const stops: (() => Promise<void>)[] = [];

afterEach(async () => {
  await session?.dispose();
  session = undefined;
  for (const stop of stops.splice(0)) await stop();
  await ws?.cleanup();
});

/**
 * A protected MCP endpoint in front of server-everything, with the smallest authorization server that
 * speaks the MCP authorization spec: metadata, dynamic registration, authorize (PKCE) and token.
 */
async function startProtectedServer(): Promise<{ url: string; issued: string[] }> {
  const upstream = await startEverythingHttp("streamableHttp");
  stops.push(upstream.stop);
  const target = new URL(upstream.url);
  const issued: string[] = [];
  const challenges = new Map<string, string>();
  let base = "";
  const json = (res: import("node:http").ServerResponse, body: unknown, status = 200) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", base);
    const body = await new Promise<string>((resolve) => {
      let text = "";
      req.on("data", (chunk) => (text += chunk));
      req.on("end", () => resolve(text));
    });
    if (url.pathname.startsWith("/.well-known/oauth-protected-resource"))
      return json(res, { resource: `${base}/mcp`, authorization_servers: [base] });
    if (url.pathname === "/.well-known/oauth-authorization-server")
      return json(res, {
        issuer: base,
        authorization_endpoint: `${base}/authorize`,
        token_endpoint: `${base}/token`,
        registration_endpoint: `${base}/register`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
      });
    if (url.pathname === "/register")
      return json(res, { ...JSON.parse(body), client_id: "gantry-client" }, 201);
    if (url.pathname === "/authorize") {
      const code = `code-${challenges.size + 1}`;
      challenges.set(code, url.searchParams.get("code_challenge") ?? "");
      const back = new URL(url.searchParams.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", url.searchParams.get("state") ?? "");
      res.writeHead(302, { location: back.href });
      return res.end();
    }
    if (url.pathname === "/token") {
      const form = new URLSearchParams(body);
      const verifier = form.get("code_verifier") ?? "";
      const expected = challenges.get(form.get("code") ?? "");
      const actual = createHash("sha256").update(verifier).digest("base64url");
      if (!expected || expected !== actual) return json(res, { error: "invalid_grant" }, 400);
      const token = `token-${issued.length + 1}`;
      issued.push(token);
      return json(res, { access_token: token, token_type: "Bearer", expires_in: 3600 });
    }
    if (!issued.includes((req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
      res.writeHead(401, {
        "www-authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
      });
      return res.end();
    }
    const headers = { ...req.headers, host: target.host };
    delete headers.authorization;
    const forward = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  stops.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `${base}/mcp`, issued };
}

describe("OAuth for remote MCP servers", () => {
  it("a server that asks for sign-in is reported with the command; gantry mcp login's flow gets a token that later sessions use", async () => {
    ws = await createTempWorkspace();
    const remote = await startProtectedServer();
    const mcpServers = { remote: { type: "http", url: remote.url } };
    session = createGantrySession({ workspace: ws.root, home: ws.home, mcpServers });
    const [failure] = await session.mcp.startMain();
    expect(failure).toContain('run "gantry mcp login remote"');
    const config = session.mcp.get("remote")?.config;
    await session.dispose();
    session = undefined;

    // the "browser": opens the authorization page and follows its redirect back to Gantry's listener
    const outcome = await loginMcpServer(config as NonNullable<typeof config>, ws.home, async (url) => {
      const page = await fetch(url, { redirect: "manual" });
      await fetch(page.headers.get("location") as string);
    });
    expect(outcome).toBe("authorized");
    expect(remote.issued).toEqual(["token-1"]);
    expect(statSync(oauthStoreFile(ws.home)).mode & 0o777).toBe(0o600);

    session = createGantrySession({ workspace: ws.root, home: ws.home, mcpServers });
    expect(await session.mcp.startMain()).toEqual([]);
    const result = await session.pipeline.run({ name: "mcp__remote__echo", args: { message: "signed in" } });
    expect(result.text).toContain("signed in");
  }, 90_000);
});
