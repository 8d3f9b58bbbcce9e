import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type {
  Client,
  Tool as McpToolInfo,
  StreamableHTTPClientTransport,
  Transport,
} from "@modelcontextprotocol/client";
import { descendantsOf, isAlive } from "../tools/exec/process-tree.js";
import { fileDigest } from "../trust/digest.js";
import type { McpServerConfig } from "./config.js";
import type { ElicitRequest, ElicitResult } from "./elicitation.js";
import { loadMcpSdk, type McpSdk } from "./load-sdk.js";
import { startError } from "./start-errors.js";

export type McpState = "idle" | "starting" | "ready" | "failed" | "disabled";

export interface McpConnectionDeps {
  /** Folder for one `<server>.log` per server: its stderr, start and exit lines. */
  logDir: string;
  clientVersion: string;
  /**
   * Folders offered as MCP roots (`roots/list`): the workspace, so a server such as
   * server-filesystem started without folders works in it. None: the capability is not declared.
   */
  roots?: readonly string[];
  /**
   * Puts a server's form (`elicitation/create`) to the user; none: elicitation is not offered (a
   * headless session, where nobody could fill it in).
   */
  elicit?: (request: ElicitRequest, signal: AbortSignal) => Promise<ElicitResult>;
  /** The server's tool list, after each start and each `tools/list_changed`. */
  onTools(tools: McpToolInfo[]): void;
  /** An OAuth provider for remote servers that ask for it (src/mcp/oauth.ts). */
  authProvider?: ConstructorParameters<typeof StreamableHTTPClientTransport>[1] extends infer O
    ? O extends { authProvider?: infer P }
      ? P
      : never
    : never;
}

/** One MCP server's life: started on first use, reported when it fails, started again on the next use. */
export interface McpConnection {
  readonly config: McpServerConfig;
  readonly state: McpState;
  /** Why it is not ready: the error, the end of its stderr and where the whole log is. */
  readonly problem: string | undefined;
  readonly logFile: string;
  /** The negotiated protocol revision, once ready. */
  readonly protocolVersion: string | undefined;
  readonly tools: readonly McpToolInfo[];
  /** Starts it if it is not running (a failed or crashed server starts again); resolves to the client or the problem. */
  ready(): Promise<Client | string>;
  /** Describes a failed request (timeout, crash, the server's error), with the stderr tail where it helps. */
  describeError(cause: unknown, what: string): string;
  close(): Promise<void>;
}

const STDERR_TAIL_CHARS = 2000;

export function createMcpConnection(config: McpServerConfig, deps: McpConnectionDeps): McpConnection {
  const logFile = path.join(deps.logDir, `${config.name}.log`);
  // a problem of the entry itself (an unset variable, no command) is said with the server's name
  const entryProblem = config.problem && `MCP server "${config.name}" is not started: ${config.problem}`;
  let state: McpState = config.enabled ? "idle" : "disabled";
  let problem: string | undefined = config.enabled ? entryProblem : "disabled in its configuration";
  let client: Client | undefined;
  let transport: Transport | undefined;
  let starting: Promise<Client | string> | undefined;
  let tools: McpToolInfo[] = [];
  let stderrTail = "";
  let closing = false;
  let sdk: McpSdk | undefined;

  const log = (line: string) => {
    try {
      mkdirSync(deps.logDir, { recursive: true });
      appendFileSync(logFile, line.endsWith("\n") ? line : `${line}\n`);
    } catch {
      // a log that cannot be written must not stop the server
    }
  };
  const withTail = (message: string) => {
    const tail = stderrTail.trim();
    return `${message}${tail ? `\nLast stderr lines:\n${tail}` : ""}\n(full log: ${logFile})`;
  };

  const refused = (why: string) => {
    state = "failed";
    problem = why;
    return why;
  };

  async function start(): Promise<Client | string> {
    if (entryProblem) return refused(entryProblem);
    const changed = config.scripts?.find((script) => fileDigest(script.file) !== script.digest);
    if (changed)
      return refused(
        `MCP server "${config.name}" is not started: its script ${changed.file} changed after this session trusted it (review the script, then run "gantry trust" and start a new session)`,
      );
    stderrTail = "";
    log(`--- ${new Date().toISOString()} starting ${config.verbatim}`);
    sdk = await loadMcpSdk();
    const first = await attempt(sdk, "auto");
    // a server that hangs up on the 2026 probe (some do, before `initialize`) gets the 2025 handshake
    if (typeof first !== "string" || !/connection closed/i.test(first)) return first;
    log("--- closed during the protocol probe; starting again with the 2025 handshake");
    return attempt(sdk, "legacy");
  }

  async function attempt(loaded: McpSdk, mode: "auto" | "legacy"): Promise<Client | string> {
    closing = false;
    const made = makeTransport(loaded, config, deps);
    transport = made;
    if (made instanceof loaded.OwnStdioTransport) {
      made.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        log(text);
        stderrTail = (stderrTail + text).slice(-STDERR_TAIL_CHARS);
      });
    }
    const next = new loaded.Client({ name: "gantry", version: deps.clientVersion }, clientOptions(mode));
    const roots = deps.roots ?? [];
    if (roots.length > 0)
      next.setRequestHandler("roots/list", async () => ({
        roots: roots.map((root) => ({ uri: pathToFileURL(root).href, name: path.basename(root) })),
      }));
    const elicit = deps.elicit;
    if (elicit)
      next.setRequestHandler("elicitation/create", async (request, ctx) => {
        // URL mode (open a page) is not offered: only forms reach here
        if (request.params.mode === "url") return { action: "decline" };
        log(`--- asks the user: ${request.params.message}`);
        return elicit(request.params as ElicitRequest, ctx.mcpReq.signal);
      });
    next.onclose = () => {
      if (closing || client !== next) return;
      client = undefined;
      state = "failed";
      problem = withTail(`MCP server "${config.name}" exited`);
      log(`--- ${new Date().toISOString()} exited`);
    };
    try {
      await next.connect(made, { timeout: config.startupTimeoutMs });
      const listed = next.getServerCapabilities()?.tools
        ? await next.listTools(undefined, { timeout: config.startupTimeoutMs })
        : { tools: [] };
      client = next;
      tools = listed.tools;
      state = "ready";
      problem = undefined;
      log(`--- ready (protocol ${next.getNegotiatedProtocolVersion() ?? "?"}, ${tools.length} tools)`);
      deps.onTools(tools);
      return next;
    } catch (cause) {
      const message = await startError(loaded, cause, config);
      log(`--- failed: ${message}`);
      await shutDown(next);
      state = "failed";
      problem = withTail(`MCP server "${config.name}" did not start: ${message}`);
      return problem;
    }
  }

  function clientOptions(mode: "auto" | "legacy"): ConstructorParameters<typeof Client>[1] {
    return {
      // roots: deprecated by the 2026-07-28 revision, still what servers of the 2025 handshake ask for
      capabilities: {
        ...((deps.roots ?? []).length > 0 ? { roots: { listChanged: false } } : {}),
        ...(deps.elicit ? { elicitation: { form: {} } } : {}),
      },
      // the 2026-07-28 revision where the server has it, else the 2025 handshake
      versionNegotiation: {
        mode,
        probe: { timeoutMs: Math.min(Math.floor(config.startupTimeoutMs / 2), 10_000) },
      },
      listChanged: {
        tools: {
          onChanged: (error, listed) => {
            if (error || !listed) return;
            tools = listed;
            deps.onTools(listed);
          },
        },
      },
    };
  }

  async function shutDown(target: Client | undefined): Promise<void> {
    closing = true;
    const closed = transport;
    const tree = sdk && closed instanceof sdk.OwnStdioTransport ? closed.spawnedPid : undefined;
    const below = tree === undefined ? [] : descendantsOf(tree);
    try {
      if (target) await target.close();
      await closed?.close();
    } catch {
      // closing a broken connection may fail; the processes are ended below all the same
    }
    // a server that ignores the end of its input, and the real server behind npx or a shell wrapper
    for (const pid of tree === undefined ? [] : [tree, ...below]) if (isAlive(pid)) killQuietly(pid);
    if (client === target) client = undefined;
    if (transport === closed) transport = undefined;
  }

  return {
    config,
    get state() {
      return state;
    },
    get problem() {
      return problem;
    },
    logFile,
    get protocolVersion() {
      return client?.getNegotiatedProtocolVersion();
    },
    get tools() {
      return tools;
    },
    ready() {
      if (state === "disabled") return Promise.resolve(problem ?? "disabled");
      if (client && state === "ready") return Promise.resolve(client);
      if (!starting) {
        state = "starting";
        starting = start().finally(() => {
          starting = undefined;
        });
      }
      return starting;
    },
    describeError(cause, what) {
      const code = sdk && cause instanceof sdk.SdkError ? cause.code : undefined;
      if (code !== undefined && code === sdk?.SdkErrorCode.RequestTimeout)
        return `${what} timed out after ${config.timeoutMs} ms; the request was cancelled (set "timeout" for the server to wait longer)`;
      if (code !== undefined && code === sdk?.SdkErrorCode.ConnectionClosed) {
        state = "failed";
        client = undefined;
        return withTail(
          `${what} failed: MCP server "${config.name}" exited during the call; it starts again on the next use`,
        );
      }
      return `${what} failed: ${(cause as Error).message ?? String(cause)}`;
    },
    async close() {
      const target = client;
      await shutDown(target);
      if (state !== "disabled") state = "idle";
    },
  };
}

function makeTransport(sdk: McpSdk, config: McpServerConfig, deps: McpConnectionDeps): Transport {
  const t = config.transport;
  if (t.kind === "stdio") {
    return new sdk.OwnStdioTransport({
      command: t.command,
      args: t.args,
      env: t.env,
      cwd: t.cwd,
      stderr: "pipe",
    });
  }
  const url = new URL(t.url);
  const requestInit = { headers: t.headers };
  if (t.kind === "sse") return new sdk.SSEClientTransport(url, { requestInit, ...authOf(deps) });
  return new sdk.StreamableHTTPClientTransport(url, { requestInit, ...authOf(deps) });
}

function authOf(deps: McpConnectionDeps) {
  return deps.authProvider ? { authProvider: deps.authProvider } : {};
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}
