import { type AgentInbox, createAgentInbox } from "./agent/inbox.js";
import { loadSettings, type Settings } from "./config/settings.js";
import { createBuiltinTools } from "./tools/builtin.js";
import { createToolPipeline, type ToolPipeline } from "./tools/pipeline.js";
import { createToolRegistry, type ToolRegistry } from "./tools/registry.js";
import { createReadLedger } from "./workspace/read-ledger.js";
import { openWorkspace, type Workspace } from "./workspace/workspace.js";

export interface GantryOptions {
  /** The workspace folder; defaults to the current directory. */
  workspace?: string;
  /** Settings to use instead of the files in ~/.agents and <workspace>/.agents. */
  settings?: Settings;
  /** Home folder for user-level configuration (tests point it at a temp folder). */
  home?: string;
}

/** One Gantry session's tools: the workspace guard, the registry and the one pipeline. */
export interface GantrySession {
  workspace: Workspace;
  settings: Settings;
  registry: ToolRegistry;
  pipeline: ToolPipeline;
  inbox: AgentInbox;
  /** Ends everything the session started (processes, timers, worktrees). Safe to call twice. */
  dispose(): Promise<void>;
}

export function createGantrySession(options: GantryOptions = {}): GantrySession {
  const root = options.workspace ?? process.cwd();
  const settings = options.settings ?? loadSettings(root, options.home);
  const workspace = openWorkspace(root, { limits: settings.limits, secrets: settings.secrets });
  const inbox = createAgentInbox();
  const cleanups: (() => Promise<void> | void)[] = [];
  const lifecycle = { onDispose: (cleanup: () => Promise<void> | void) => void cleanups.push(cleanup) };

  const registry = createToolRegistry(
    createBuiltinTools({ workspace, settings, reads: createReadLedger(), inbox, lifecycle }),
  );
  for (const name of settings.tools?.disabled ?? []) {
    if (!registry.lookup(name)) throw new Error(`settings tools.disabled names an unknown tool "${name}"`);
    registry.setEnabled(name, false);
  }
  const pipeline = createToolPipeline({ registry, maxOutputChars: workspace.limits.maxOutputChars });

  let disposed = false;
  return {
    workspace,
    settings,
    registry,
    pipeline,
    inbox,
    async dispose() {
      if (disposed) return;
      disposed = true;
      const failures: unknown[] = [];
      for (const cleanup of cleanups.reverse()) {
        try {
          await cleanup();
        } catch (cause) {
          failures.push(cause);
        }
      }
      if (failures.length > 0) throw new AggregateError(failures, "session cleanup failed");
    },
  };
}
