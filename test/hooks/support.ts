import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { z } from "zod";
import { createAgentInbox } from "../../src/agent/inbox.js";
import { loadHookConfig } from "../../src/hooks/config.js";
import { createHookStep } from "../../src/hooks/step.js";
import { createBuiltinTools } from "../../src/tools/builtin.js";
import { type AnyTool, defineTool, errorResult, okResult } from "../../src/tools/contract.js";
import { createToolPipeline, type ToolPipeline } from "../../src/tools/pipeline.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { createReadLedger } from "../../src/workspace/read-ledger.js";
import { openWorkspace } from "../../src/workspace/workspace.js";
import type { TempWorkspace } from "../support/workspace.js";

/** Stand-ins named like Gantry's tools, so hooks match by canonical name, alias and dialect name. */
export function probeTools(root: string) {
  const commands: string[] = [];
  const runCommand = defineTool({
    spec: {
      name: "run_command",
      description: "records the command line instead of running it",
      parameters: z.object({
        CommandLine: z.string().describe("the command"),
        Cwd: z.string().optional().describe("folder"),
      }),
      safety: "execute",
      group: "Command",
      aliases: ["code_execution"],
    },
    execute: async (args) => {
      commands.push(args.CommandLine);
      return args.CommandLine.includes("fail")
        ? errorResult("execution_failed", "boom: exit 1")
        : okResult("ran");
    },
  });
  const viewFile = defineTool({
    spec: {
      name: "view_file",
      description: "reads a file in the workspace",
      parameters: z.object({ AbsolutePath: z.string().describe("the file") }),
      safety: "read_only",
      group: "Read",
      aliases: ["read_file", "read"],
    },
    execute: async (args) => {
      try {
        return okResult(await readFile(path.resolve(root, args.AbsolutePath), "utf8"));
      } catch (cause) {
        return errorResult("not_found", (cause as Error).message);
      }
    },
  });
  const writeFile = defineTool({
    spec: {
      name: "write_to_file",
      description: "pretends to write",
      parameters: z.object({
        TargetFile: z.string().describe("file"),
        CodeContent: z.string().describe("content"),
      }),
      safety: "write",
      group: "Edit",
      aliases: ["write_file"],
    },
    execute: async (args) => okResult(`wrote ${args.TargetFile}`),
  });
  return { tools: [runCommand, viewFile, writeFile], commands };
}

export interface HookHarness {
  pipeline: ToolPipeline;
  /** Lines the hook step logged. */
  log: string[];
  /** Command lines the stand-in run_command received (i.e. calls that actually ran). */
  commands: string[];
}

/** A pipeline over the stand-in tools with the workspace's hooks loaded, as a session would. */
export function hookHarness(ws: TempWorkspace, env: NodeJS.ProcessEnv = process.env): HookHarness {
  const { tools, commands } = probeTools(ws.root);
  return { ...pipelineWithHooks(ws, tools, env), commands };
}

/**
 * A pipeline over Gantry's real built-in tools (their real names, aliases and argument names) plus a
 * stand-in `agent` tool, with the workspace's hooks loaded; `agentCalls` records what `agent` received.
 */
export function builtinHookHarness(ws: TempWorkspace) {
  const workspace = openWorkspace(ws.root, {});
  const builtins = createBuiltinTools({
    workspace,
    settings: {},
    reads: createReadLedger(),
    inbox: createAgentInbox(),
    lifecycle: { onDispose: () => undefined },
  });
  const agentCalls: Record<string, unknown>[] = [];
  const agent = defineTool({
    spec: {
      name: "agent",
      description: "records the subagent request instead of starting one",
      parameters: z.object({
        description: z.string().describe("a short description"),
        prompt: z.string().describe("the task"),
        subagent_type: z.string().optional().describe("the type"),
      }),
      safety: "read_only",
      group: "Subagents",
      aliases: ["Task"],
    },
    execute: async (args) => {
      agentCalls.push(args);
      return okResult("started");
    },
  });
  return { ...pipelineWithHooks(ws, [...builtins, agent], process.env), agentCalls };
}

function pipelineWithHooks(ws: TempWorkspace, tools: AnyTool[], env: NodeJS.ProcessEnv) {
  const log: string[] = [];
  const config = loadHookConfig(ws.root, ws.home);
  const problems = config.problems.filter((p) => p.severity === "error");
  if (problems.length > 0) throw new Error(JSON.stringify(problems));
  const hooks = createHookStep({
    config,
    workspaceRoot: ws.root,
    log: (line) => log.push(line),
    env,
    killGraceMs: 200,
    environmentId: "env_test",
  });
  const pipeline = createToolPipeline({ registry: createToolRegistry(tools), maxOutputChars: 20_000, hooks });
  return { pipeline, log };
}

export function hooksJson(config: unknown): string {
  return JSON.stringify(config, null, 2);
}

export interface RecordedRequest {
  headers: IncomingMessage["headers"];
  body: unknown;
  url: string;
}

/** A real HTTP server on 127.0.0.1 recording every request; `reply` decides each answer. */
export async function startServer(
  reply: (req: IncomingMessage, res: ServerResponse, body: string) => void = (_q, res) => res.end("{}"),
): Promise<{ url: string; requests: RecordedRequest[]; server: Server; close(): Promise<void> }> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        // keep the text
      }
      requests.push({ headers: req.headers, body: parsed, url: req.url ?? "" });
      reply(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Whether a process id is alive (signal 0 probes without killing). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
