import type { SubagentHost } from "../../subagents/host.js";
import type { AnyTool } from "../contract.js";
import { createAgentTool } from "./agent.js";
import { createDefineSubagentTool } from "./define-subagent.js";
import { createInvokeSubagentTool } from "./invoke-subagent.js";
import { createListAgentsTool, createManageSubagentsTool } from "./manage-subagents.js";
import { createSendMessageTool } from "./send-message.js";

/** The Subagents tool family (SPEC §2, §6), all on one host. */
export function createSubagentTools(host: SubagentHost): AnyTool[] {
  return [
    createAgentTool(host),
    createInvokeSubagentTool(host),
    createDefineSubagentTool(host.catalog),
    createSendMessageTool(host),
    createListAgentsTool(host),
    createManageSubagentsTool(host),
  ];
}
