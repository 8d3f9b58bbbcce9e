import { readFile } from "node:fs/promises";
import path from "node:path";
import { createAgentInbox } from "../../../src/agent/inbox.js";
import type { Settings } from "../../../src/config/settings.js";
import { createBuiltinTools } from "../../../src/tools/builtin.js";
import type { ToolResult } from "../../../src/tools/contract.js";
import { createToolPipeline } from "../../../src/tools/pipeline.js";
import { createToolRegistry } from "../../../src/tools/registry.js";
import { createReadLedger, type ReadLedger } from "../../../src/workspace/read-ledger.js";
import { openWorkspace } from "../../../src/workspace/workspace.js";
import { createTempWorkspace, type TempWorkspace } from "../../support/workspace.js";

export interface EditHarness {
  ws: TempWorkspace;
  /** What the session's view_file recorded of each file (the edit tools' stale-file check reads it). */
  reads: ReadLedger;
  /** One call through the real pipeline (lookup, validation, gates, execute, output limit). */
  run(name: string, args: Record<string, unknown>): Promise<ToolResult>;
  /** view_file of the whole file, as the agent would before editing. */
  view(relPath: string): Promise<ToolResult>;
  bytes(relPath: string): Promise<Buffer>;
  text(relPath: string): Promise<string>;
  cleanup(): Promise<void>;
}

/** A temp workspace with the built-in tools behind the default pipeline (no hooks, no policy). */
export async function createEditHarness(
  files: Record<string, string | Uint8Array> = {},
  options: { settings?: Settings; requireReadBeforeEdit?: boolean } = {},
): Promise<EditHarness> {
  const ws = await createTempWorkspace(files);
  const settings = options.settings ?? {};
  const workspace = openWorkspace(ws.root, { limits: settings.limits, secrets: settings.secrets });
  const reads = createReadLedger();
  const tools = createBuiltinTools({
    workspace,
    settings,
    reads,
    inbox: createAgentInbox(),
    lifecycle: { onDispose: () => undefined },
    requireReadBeforeEdit: options.requireReadBeforeEdit,
  });
  const pipeline = createToolPipeline({
    registry: createToolRegistry(tools),
    maxOutputChars: workspace.limits.maxOutputChars,
  });
  const run = (name: string, args: Record<string, unknown>) => pipeline.run({ name, args });
  return {
    ws,
    reads,
    run,
    view: (relPath) => run("view_file", { AbsolutePath: relPath }),
    bytes: (relPath) => readFile(path.join(ws.root, relPath)),
    text: (relPath) => readFile(path.join(ws.root, relPath), "utf8"),
    cleanup: () => ws.cleanup(),
  };
}

/** replace_file_content arguments with the boilerplate fields filled in. */
export function replaceArgs(
  file: string,
  target: string,
  replacement: string,
  startLine: number,
  endLine: number,
  allowMultiple = false,
): Record<string, unknown> {
  return {
    TargetFile: file,
    Instruction: "test edit",
    Description: "test edit",
    TargetContent: target,
    ReplacementContent: replacement,
    StartLine: startLine,
    EndLine: endLine,
    AllowMultiple: allowMultiple,
  };
}
