import { z } from "zod";
import type { Settings } from "../../src/config/settings.js";
import {
  type Asker,
  createCallbackAsker,
  type PermissionAnswer,
  type PermissionRequest,
} from "../../src/policy/asker.js";
import { createConsentStep } from "../../src/policy/consent-step.js";
import type { ApprovalMode } from "../../src/policy/modes.js";
import { createSessionPermissions, type SessionPermissions } from "../../src/policy/permissions.js";
import { createPolicyStep } from "../../src/policy/policy-step.js";
import { type AnyTool, defineTool, okResult, type SafetyLevel } from "../../src/tools/contract.js";
import type { HookStep, Verdict } from "../../src/tools/gates.js";
import { createToolPipeline, type ToolPipeline } from "../../src/tools/pipeline.js";
import { createToolRegistry } from "../../src/tools/registry.js";
import { resolveWorkspaceTrust, type WorkspaceTrust } from "../../src/trust/workspace-trust.js";
import { openWorkspace } from "../../src/workspace/workspace.js";

/**
 * Stand-ins named and shaped like Gantry's tools (same names, aliases, safety and path fields): the
 * policy judges names and arguments, so they record the call instead of doing it.
 */
export function standInTools(ran: string[]): AnyTool[] {
  const tool = (
    name: string,
    safety: SafetyLevel,
    fields: Record<string, z.ZodType>,
    aliases: string[] = [],
  ) =>
    defineTool({
      spec: {
        name,
        description: `stand-in for ${name}`,
        parameters: z.object(fields),
        safety,
        group: "Read",
        aliases,
      },
      execute: async () => {
        ran.push(name);
        return okResult(`${name} ran`);
      },
    });
  const text = (what: string) => z.string().describe(what);
  return [
    tool("view_file", "read_only", { AbsolutePath: text("file") }, ["read_file"]),
    tool("list_dir", "read_only", { DirectoryPath: text("folder") }, ["list_files"]),
    tool("write_to_file", "write", { TargetFile: text("file"), CodeContent: text("text") }, ["write_file"]),
    tool("delete_file", "write", { TargetFile: text("file") }),
    tool("run_command", "execute", { CommandLine: text("command"), Cwd: text("folder").optional() }, [
      "code_execution",
    ]),
    tool("read_url_content", "network", { Url: text("url") }),
    tool("search_web", "network", { query: text("query") }),
  ];
}

/** A HookStep that answers one fixed decision, standing in for a hooks.json handler. */
export function fixedHook(verdict: Verdict | undefined): HookStep {
  return {
    before: async (call) => ({
      decision: { verdict: verdict ?? "allow", source: verdict ? "hook test-hook" : "no hooks" },
      hookAllowed: verdict === "allow",
      args: call.args,
      additionalContext: [],
    }),
    after: async () => ({ additionalContext: [] }),
  };
}

/** An asker that records each request and gives a scripted answer. */
export function scriptedAsker(answer: PermissionAnswer["choice"] = "once") {
  const requests: PermissionRequest[] = [];
  const asker: Asker = createCallbackAsker({
    onPermission: (request) => {
      requests.push(request);
      return { choice: answer };
    },
  });
  return { asker, requests };
}

export interface PolicyHarness {
  pipeline: ToolPipeline;
  permissions: SessionPermissions;
  ran: string[];
}

export function policyHarness(options: {
  root: string;
  home: string;
  mode?: ApprovalMode;
  settings?: Settings;
  hook?: Verdict;
  /** A hook step of the test's own (one that rewrites arguments); wins over `hook`. */
  hookStep?: HookStep;
  asker?: Asker;
  /** Whose workspace files count; rule tests trust the workspace (trust itself: test/trust/). */
  trust?: WorkspaceTrust;
}): PolicyHarness {
  const ran: string[] = [];
  const registry = createToolRegistry(standInTools(ran));
  const permissions = createSessionPermissions({
    workspace: openWorkspace(options.root),
    home: options.home,
    settings: options.settings,
    trust: options.trust ?? resolveWorkspaceTrust(options.root, { kind: "given", how: "the test trusts it" }),
    approvalMode: options.mode,
    asker: options.asker,
    resolveTool: (name) => registry.lookup(name)?.spec.name,
  });
  const pipeline = createToolPipeline({
    registry,
    maxOutputChars: 20_000,
    policy: createPolicyStep(permissions),
    hooks: options.hookStep ?? fixedHook(options.hook),
    consent: createConsentStep(permissions),
  });
  return { pipeline, permissions, ran };
}
