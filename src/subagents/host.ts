import { mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import path from "node:path";
import type { Conversation } from "../agent/conversation.js";
import type { AgentEvent } from "../agent/events.js";
import type { AgentInbox } from "../agent/inbox.js";
import type { Settings } from "../config/settings.js";
import type { SessionHooks } from "../hooks/lifecycle.js";
import type { ModelClient } from "../models/client.js";
import type { SessionPermissions } from "../policy/permissions.js";
import type { SkillCatalog } from "../skills/catalog.js";
import type { SessionLifecycle } from "../tools/environment.js";
import type { ToolPipeline } from "../tools/pipeline.js";
import { originOf } from "../trust/origin.js";
import type { WorkspaceTrust } from "../trust/workspace-trust.js";
import type { Workspace } from "../workspace/workspace.js";
import { isModelTier, modelForTier } from "./model-tiers.js";
import { createRunningAgents, type RunningAgents } from "./registry.js";
import type { RemoteAgents } from "./remote.js";
import { listSavedAgents } from "./transcript.js";
import { createSubagentCatalog, type SubagentCatalog, type SubagentDefinition } from "./types.js";
import { removeAgentWorktree } from "./worktree.js";

/** A Gantry session opened in another folder (an agent's worktree) with this session's settings. */
export interface ChildSession {
  workspace: Workspace;
  pipeline: ToolPipeline;
  /** Its MCP servers (a worktree session has its own), started before an agent's tools are listed. */
  mcp?: McpPreparer;
  /** Its skills: the user's and those of its own folder, at its paths (view_file's IsSkillFile reads them there). */
  skills?: SkillCatalog;
  dispose(): Promise<void>;
}

/** Starts the MCP servers an agent's tool list means, so their tools are registered before it is planned. */
export interface McpPreparer {
  prepare(patterns: readonly string[]): Promise<string[]>;
}

/**
 * What only the code running the main agent knows: the model, the event stream and the main
 * conversation. Set with `bind` once they exist (the headless runner, the terminal UI, a library user).
 */
export interface SubagentBinding {
  model: ModelClient;
  /** Makes a client for `provider:model-id` (an agent file's `model:`, invoke_subagent's Model). */
  modelFor?: (spec: string) => ModelClient | string;
  /** The parent's event stream: subagent events arrive on it tagged with their agentId. */
  onEvent?: (event: AgentEvent) => void;
  /** The main agent's conversation and system prompt, which forks continue. */
  mainConversation?: Conversation;
  mainSystem?: string;
  /** Where subagent transcripts are saved (beside the parent session; see transcriptDirFor). */
  transcriptDir?: string;
  baseUrl?: string;
}

export interface SubagentHostDeps {
  workspace: Workspace;
  settings: Settings;
  home?: string;
  /** Whose agent files count fully: an untrusted workspace's may not pick another provider. */
  trust?: WorkspaceTrust;
  inbox: AgentInbox;
  lifecycle: SessionLifecycle;
  /** Opens the tools in a worktree; without it, worktree agents are unavailable. */
  openSession?: (root: string) => ChildSession;
  /** The session's lifecycle hooks: SubagentStart and SubagentStop fire with each agent's id. */
  hooks?: SessionHooks;
  /** Where notices for the user go (a model tier this provider lacks); default: stderr, prefixed `gantry: `. */
  notice?: (line: string) => void;
  /** Runs foreground agents outside this process (a durable session); background ones are then refused. */
  remote?: RemoteAgents;
  /** The session's skills: an agent in the session's own folder that can read files sees the list too. */
  skills?: SkillCatalog;
  /** The session's permissions: an agent file's `permissionMode` narrows its agent's mode there. */
  permissions?: SessionPermissions;
}

export interface SubagentLimits {
  /** How deep agents may nest: 1 = subagents cannot start subagents. */
  maxDepth: number;
  /** Model turns per subagent run. */
  maxTurns: number;
}

export const DEFAULT_SUBAGENT_LIMITS: SubagentLimits = { maxDepth: 2, maxTurns: 50 };

/** The session's subagent machinery, shared by the agent tools. */
export interface SubagentHost {
  readonly deps: SubagentHostDeps;
  readonly catalog: SubagentCatalog;
  readonly agents: RunningAgents;
  readonly limits: SubagentLimits;
  /** Conversations and system prompts of running and finished agents (forks of subagents use them). */
  readonly conversations: Map<string, { conversation: Conversation; system: string }>;
  /** The main pipeline, set by createGantrySession once it exists. */
  pipeline?: ToolPipeline;
  /** The session's MCP servers, set by createGantrySession: started before an agent's tools are listed. */
  mcp?: McpPreparer;
  binding?: SubagentBinding;
  attach(pipeline: ToolPipeline): void;
  bind(binding: SubagentBinding): void;
  modelFor(spec: string | undefined): ModelClient | string;
  /** The model an agent type asks for, if it may (an untrusted file may not switch provider). */
  definitionModel(definition: SubagentDefinition | undefined): string | undefined;
  /** The turns an agent type may take: its `maxTurns`, within `subagents.maxTurns` where its folder is not trusted. */
  definitionMaxTurns(definition: SubagentDefinition | undefined): number;
  transcriptDir(): string;
  /** Kills every agent and removes every worktree; the session's dispose calls it. */
  shutdown(why: string): Promise<void>;
}

export function createSubagentHost(deps: SubagentHostDeps): SubagentHost {
  const home = deps.home ?? homedir();
  const trust = deps.trust;
  const catalog = createSubagentCatalog(
    deps.workspace.root,
    home,
    (file, content) =>
      originOf(file, home, deps.workspace.root) === "home" || (trust?.file(file, content).trusted ?? true),
  );
  const warned = new Set<string>();
  const agents = createRunningAgents();
  const configured = deps.settings.subagents ?? {};
  let scratchDir: string | undefined;
  const noticed = new Set<string>();
  const notice = deps.notice ?? ((line: string) => void process.stderr.write(`gantry: ${line}\n`));

  const host: SubagentHost = {
    deps,
    catalog,
    agents,
    limits: {
      maxDepth: configured.maxDepth ?? DEFAULT_SUBAGENT_LIMITS.maxDepth,
      maxTurns: configured.maxTurns ?? DEFAULT_SUBAGENT_LIMITS.maxTurns,
    },
    conversations: new Map(),
    attach(pipeline) {
      host.pipeline = pipeline;
      // registered after every tool's cleanup, so it runs first: agents stop before their tools' processes go
      deps.lifecycle.onDispose(() => host.shutdown("the session ended"));
    },
    bind(binding) {
      host.binding = binding;
      if (binding.transcriptDir) restoreSavedAgents(host, binding.transcriptDir);
    },
    modelFor(requested) {
      const binding = host.binding;
      if (!binding) return "subagents need a model: run them from `gantry -p` or the terminal UI";
      let spec = requested === "inherit" ? undefined : requested;
      if (spec !== undefined && isModelTier(spec)) {
        const tier = modelForTier(spec, binding.model.id, configured.models);
        // said once per tier and session, not at every agent started
        if (tier.notice && !noticed.has(spec)) {
          noticed.add(spec);
          notice(tier.notice);
        }
        spec = tier.model;
      }
      // a bare model id is one of the parent's provider (Qwen Code's reading of `model: qwen3-coder-plus`)
      const provider = providerOf(binding.model.id);
      if (spec !== undefined && !spec.includes(":") && provider) spec = `${provider}:${spec}`;
      if (spec === undefined || spec === binding.model.id) return binding.model;
      // the front end that bound the model also knows how to make others (keeps the AI SDK off this path)
      if (binding.modelFor) return binding.modelFor(spec);
      return `this front end cannot switch subagents to another model ("${spec}"); remove \`model:\` from the agent type`;
    },
    definitionModel(definition) {
      if (!definition?.model || !definition.untrusted) return definition?.model;
      // a tier stays with the parent's provider (or the user's subagents.models): no provider switch
      if (isModelTier(definition.model)) return definition.model;
      const parent = host.binding?.model.id;
      // a bare model id stays with the parent's provider, as a tier does
      if (!definition.model.includes(":")) return definition.model;
      if (parent !== undefined && providerOf(parent) === providerOf(definition.model))
        return definition.model;
      if (!warned.has(definition.name)) {
        warned.add(definition.name);
        process.stderr.write(
          `gantry: agent type "${definition.name}" (${definition.source}) asks for ${definition.model}, a provider you did not configure; it runs on ${parent ?? "the parent's model"} (this folder is not trusted)\n`,
        );
      }
      return undefined;
    },
    definitionMaxTurns(definition) {
      const limit = host.limits.maxTurns;
      const asked = definition?.maxTurns;
      if (asked === undefined) return limit;
      // an untrusted workspace may only tighten limits (SPEC §5a)
      if (!definition?.untrusted || asked <= limit) return asked;
      if (!warned.has(`${definition.name} maxTurns`)) {
        warned.add(`${definition.name} maxTurns`);
        process.stderr.write(
          `gantry: agent type "${definition.name}" (${definition.source}) asks for maxTurns ${asked}, more than subagents.maxTurns (${limit}); it runs with ${limit} (this folder is not trusted)\n`,
        );
      }
      return limit;
    },
    transcriptDir() {
      if (host.binding?.transcriptDir) return host.binding.transcriptDir;
      scratchDir ??= mkdtempSync(path.join(tmpdir(), "gantry-agents-"));
      return scratchDir;
    },
    async shutdown(why) {
      agents.killAll(why);
      const running = agents.list();
      await Promise.allSettled(running.map((record) => record.settled));
      // a run that ended before its cleanup could start still owns its worktree
      await Promise.allSettled(
        running.flatMap((record) => (record.worktree ? [removeAgentWorktree(record.worktree)] : [])),
      );
      if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
    },
  };
  return host;
}

/** seed 003: after the parent session resumes, its earlier agents are addressable again (finished). */
function restoreSavedAgents(host: SubagentHost, dir: string): void {
  for (const { file, meta } of listSavedAgents(dir)) {
    if (host.agents.get(meta.id)) continue;
    host.agents.add({
      id: meta.id,
      type: meta.type,
      description: meta.description,
      parentId: meta.parentId,
      depth: meta.depth,
      background: meta.background,
      state: "completed",
      startedAt: 0,
      controller: new AbortController(),
      settled: Promise.resolve(),
      transcriptFile: file,
      ...(meta.isolation === "worktree"
        ? { resumeBlockedReason: "it ran in an isolated worktree, which was removed when it finished" }
        : {}),
    });
  }
}

function providerOf(spec: string): string {
  return spec
    .slice(0, Math.max(0, spec.indexOf(":")))
    .trim()
    .toLowerCase();
}
