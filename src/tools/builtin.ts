import type { AnyTool } from "./contract.js";
import type { ToolEnvironment } from "./environment.js";

/** Every built-in tool, made for one session. Each tool family adds its factories here. */
export function createBuiltinTools(env: ToolEnvironment): AnyTool[] {
  void env;
  return [];
}
