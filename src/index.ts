export { loadSettings, type Settings } from "./config/settings.js";
export { createGantrySession, type GantryOptions, type GantrySession } from "./gantry.js";
export * from "./tools/contract.js";
export * from "./tools/gates.js";
export * from "./tools/pipeline.js";
export * from "./tools/registry.js";
export { openWorkspace, type Workspace } from "./workspace/workspace.js";
