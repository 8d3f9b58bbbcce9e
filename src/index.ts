export { z } from "zod";
export * from "./agent/context.js";
export * from "./agent/conversation.js";
export * from "./agent/events.js";
export * from "./agent/inbox.js";
export * from "./agent/instructions.js";
export * from "./agent/loop.js";
export { loadSettings } from "./config/load.js";
export type { Settings } from "./config/settings.js";
export { createGantrySession, type GantryOptions, type GantrySession } from "./gantry.js";
export type { SessionIdentity } from "./hooks/events.js";
export {
  createModelClient,
  type ModelClient,
  type ModelStreamPart,
  type ModelTurnRequest,
} from "./models/client.js";
export { contextWindowFor } from "./models/context-windows.js";
export { createLanguageModel, type ModelConfig, type ModelSpec, parseModelSpec } from "./models/provider.js";
export * from "./policy/asker.js";
export { APPROVAL_MODES, type ApprovalMode, parseApprovalMode } from "./policy/modes.js";
export type { SessionPermissions } from "./policy/permissions.js";
export { createTerminalAsker } from "./policy/terminal-asker.js";
export {
  type Agent,
  type AgentOptions,
  type AgentResult,
  createAgent,
  type PromptInput,
  type PromptOptions,
} from "./sdk/agent.js";
export type { AgentHooks, HookDecision, HookEventInput, HookFunction } from "./sdk/hooks.js";
export type { McpServerSpec } from "./sdk/mcp.js";
export { type AgentToolDefinition, defineAgentTool, type JsonSchema } from "./sdk/tool.js";
export * from "./session/jsonl.js";
export * from "./tools/contract.js";
export * from "./tools/gates.js";
export * from "./tools/pipeline.js";
export * from "./tools/registry.js";
export { openWorkspace, type Workspace } from "./workspace/workspace.js";
